import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { REPO_ROOT, spawnJs, type TsChild } from '@test/support';

/** The libraries, as compiled JavaScript resolves them (`@nest-outbox/<name>`). */
const LIBS = ['core', 'outbox', 'relay', 'relay-console', 'inbox'];

/**
 * Entry points compiled with the project's own `tsc` into a fresh folder under `.cache/`
 * (git-ignored), the libraries they import included, and run with plain Node: what users run,
 * without ts-node, swc or TypeScript loaded. Independent of any package build of the repo.
 */
export class CompiledBuild {
  private constructor(private readonly dir: string) {}

  /** Compiles `entries` (paths relative to the repo root) and what they import. */
  static compile(entries: readonly string[]): CompiledBuild {
    const root = resolve(REPO_ROOT);
    mkdirSync(join(root, '.cache'), { recursive: true });
    const dir = mkdtempSync(join(root, '.cache', 'bench-compiled-'));
    const tsconfig = join(dir, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(root, 'tsconfig.json'),
        compilerOptions: {
          outDir: dir,
          rootDir: root,
          declaration: false,
          sourceMap: false,
          inlineSources: false,
          noEmit: false,
          types: ['node'],
        },
        files: entries.map((e) => join(root, e)),
        include: [],
      }),
    );
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig],
      {
        stdio: 'inherit',
      },
    );
    // tsc keeps `@nest-outbox/*` imports as written: resolve them to the compiled libraries.
    const scope = join(dir, 'node_modules', '@nest-outbox');
    mkdirSync(scope, { recursive: true });
    for (const lib of LIBS) symlinkSync(join(dir, 'libs', lib, 'src'), join(scope, lib), 'dir');
    return new CompiledBuild(dir);
  }

  /** Runs the compiled form of `entry` (a .ts path relative to the repo root). */
  spawn(entry: string, env: Record<string, string> = {}): TsChild {
    const js = join(this.dir, entry.replace(/\.ts$/, '.js'));
    return spawnJs(relative(resolve(REPO_ROOT), js), env);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
