import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files of a throwaway PKI made with openssl: a CA, a server and client certificates. */
export interface TestPki {
  readonly dir: string;
  /** Path of a file of the PKI. */
  path(name: string): string;
  read(name: string): Buffer;
  /** Issues `name.key` / `name.crt` for `cn`, signed by `ca` (`ca` or a CA made by `newCa`). */
  issue(name: string, cn: string, ca?: string): void;
  /** Makes another CA (`name.key` / `name.crt`). */
  newCa(name: string): void;
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA (`ca`) and a server certificate for 127.0.0.1 (`server`). */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'console-pki-'));
  const newCa = (name: string) =>
    openssl(dir, [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-subj',
      `/CN=${name}`,
    ]);
  const issue = (name: string, cn: string, ca = 'ca') => {
    writeFileSync(join(dir, `${name}.ext`), 'subjectAltName=IP:127.0.0.1\n');
    openssl(dir, [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${cn}`,
    ]);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
    ]);
  };
  newCa('ca');
  issue('server', '127.0.0.1');
  return {
    dir,
    path: (name) => join(dir, name),
    read: (name) => readFileSync(join(dir, name)),
    issue,
    newCa,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
