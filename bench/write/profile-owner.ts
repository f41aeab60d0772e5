/**
 * Who a profiled frame belongs to: a package under node_modules, a lib of this repository
 * (or bench / test), node's own code by module, or a V8 pseudo-frame such as "(garbage
 * collector)" (otherwise "(native)").
 */
export function ownerOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const lib = /\/(libs\/[^/]+|bench|test)\//.exec(url);
  if (lib) return lib[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  return url;
}
