import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`),
  ...readdirSync(join(ROOT, 'libs')).map((lib) => `libs/${lib}/README.md`),
].filter((path) => path.endsWith('.md') && existsSync(join(ROOT, path)));

const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorsOf = (file: string) =>
  new Set(
    [...withoutCode(readFileSync(file, 'utf8')).matchAll(/^#+ (.*)$/gm)].map(([, heading]) =>
      heading!
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replaceAll(' ', '-'),
    ),
  );

/** Every relative link of `path` whose file or heading does not exist. */
function brokenLinks(path: string): string[] {
  const file = join(ROOT, path);
  const links = [...withoutCode(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)];
  return links
    .map(([, url]) => url!)
    .filter((url) => !/^(https?|mailto):/.test(url))
    .filter((url) => {
      const [target, anchor] = url.split('#');
      const linked = target ? join(dirname(file), target) : file;
      if (!existsSync(linked)) return true;
      return Boolean(anchor) && linked.endsWith('.md') && !anchorsOf(linked).has(anchor!);
    });
}

describe('links between the README, docs/ and the libraries’ READMEs', () => {
  it.each(DOCS)(
    'Given %s, then every relative link names a file and heading that exist',
    (path) => {
      expect({ path, broken: brokenLinks(path) }).toEqual({ path, broken: [] });
    },
  );

  it('Given the docs, then the README links each of them', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const unlinked = DOCS.filter((path) => path.startsWith('docs/')).filter(
      (path) => !readme.includes(`](${path}`),
    );
    expect(unlinked).toEqual([]);
  });
});
