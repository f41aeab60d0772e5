#!/usr/bin/env bash
# `npm run check:packages`: checks what each library would publish, as a user's npm would see it.
# Per library (libs/*): publint --strict (package.json fields against the packed files),
# @arethetypeswrong/cli --pack (types resolve under node10, node16 CJS and ESM, and bundler, and
# match the JavaScript), and the packed file list (npm pack --dry-run) holds no TypeScript
# sources, no tests and no build bookkeeping. Run `npm run build` first.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
for dir in libs/*/; do
  lib=${dir%/}
  name=$(node -p "require('./$lib/package.json').name")
  printf '\n=== %s (%s) ===\n' "$name" "$lib"
  if [ ! -f "$lib/dist/index.js" ]; then
    echo "no $lib/dist/index.js: run npm run build first"
    failed+=("$name: not built")
    continue
  fi
  npx --no-install publint --strict "$lib" || failed+=("$name: publint")
  (cd "$lib" && npx --no-install attw --pack . --format table-flipped) || failed+=("$name: attw")
  files=$(cd "$lib" && npm pack --dry-run --json 2>/dev/null | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      for (const f of JSON.parse(s)[0].files) console.log(f.path);
    });')
  bad=$(printf '%s\n' "$files" | grep -E '(^src/|^test/|\.spec\.|\.int-spec\.|\.e2e-spec\.|(^|/)[^/]*\.ts$|\.tsbuildinfo$)' | grep -vE '\.d\.ts$' || true)
  echo "packed: $(printf '%s\n' "$files" | wc -l) files"
  if [ -n "$bad" ]; then
    echo "files that must not be published:"
    printf '  %s\n' $bad
    failed+=("$name: packs sources or tests")
  fi
  for required in package.json README.md LICENSE dist/index.js dist/index.d.ts; do
    grep -qx "$required" <<<"$files" || failed+=("$name: does not pack $required")
  done
done

echo
if [ ${#failed[@]} -gt 0 ]; then
  printf 'package check failed:\n'
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "package check: every library is clean (publint --strict, attw, packed files)"
