import Module from 'node:module';

type Resolve = (request: string, ...rest: unknown[]) => string;

function packageOf(request: string): string {
  const parts = request.split('/');
  return (request.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]) ?? request;
}

/**
 * Makes `packages` unresolvable in this process, as if they were not installed: any require
 * of them, or of a path inside them, throws MODULE_NOT_FOUND from now on. Each refusal prints
 * `BLOCKED <package>` on stderr, so a test can tell that the package was asked for.
 * For child processes only (it patches Node's resolver for good).
 */
export function blockModules(packages: readonly string[]): void {
  const blocked = new Set(packages.filter(Boolean));
  const resolver = Module as unknown as { _resolveFilename: Resolve };
  const resolve = resolver._resolveFilename;
  resolver._resolveFilename = function resolveUnlessBlocked(this: unknown, request, ...rest) {
    const name = packageOf(request);
    if (blocked.has(name)) {
      process.stderr.write(`BLOCKED ${name}\n`);
      throw Object.assign(new Error(`Cannot find module '${request}'`), {
        code: 'MODULE_NOT_FOUND',
      });
    }
    return resolve.call(this, request, ...rest);
  };
}
