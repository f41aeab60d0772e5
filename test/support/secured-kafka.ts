import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KafkaConfig } from 'kafkajs';
import { REPO_ROOT } from './env';
import { freePorts } from './free-port';
import { KafkaNodeProcess, kafkaClusterId, kafkaJvm } from './kafka-node';

/** A SCRAM-SHA-512 user of the secured broker. */
export interface ScramUser {
  readonly username: string;
  readonly password: string;
}

/**
 * A broker of one test file's own with a `SASL_SSL` listener (SCRAM-SHA-512, TLS with a
 * certificate signed by a CA made at start) and a plaintext listener for the test's own
 * tooling (topic creation), the way managed clusters keep an internal one.
 */
export interface SecuredKafka {
  /** The `SASL_SSL` listener. */
  readonly brokers: string[];
  /** The plaintext listener (inter-broker; the test's admin calls). */
  readonly plaintextBrokers: string[];
  /** PEM of the CA that signed the broker's certificate. */
  readonly ca: string;
  /** PEM of another CA, which signed nothing the broker shows (an untrusted chain). */
  readonly otherCa: string;
  /** SCRAM-SHA-512 users known to the broker, with random passwords. */
  readonly users: { readonly relay: ScramUser; readonly inbox: ScramUser };
  /** kafkajs client config of `user` on the `SASL_SSL` listener, trusting `ca`. */
  clientConfig(user: ScramUser, ca?: string): KafkaConfig;
  /** Every secret of the setup (passwords, key store password): none may reach a log. */
  readonly secrets: readonly string[];
  destroy(): Promise<void>;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, and a broker key and certificate (SAN 127.0.0.1, localhost) in a PKCS12 store. */
function makeCertificates(dir: string, storePassword: string): void {
  const ca = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2'];
  openssl(dir, [...ca, '-keyout', 'ca.key', '-out', 'ca.pem', '-subj', '/CN=nest-outbox test CA']);
  openssl(dir, [...ca, '-keyout', 'other.key', '-out', 'other.pem', '-subj', '/CN=other CA']);
  openssl(dir, [
    ...['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'broker.key'],
    ...['-out', 'broker.csr', '-subj', '/CN=127.0.0.1'],
  ]);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(dir, [
    ...['x509', '-req', '-in', 'broker.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key'],
    ...['-CAcreateserial', '-out', 'broker.pem', '-days', '2', '-extfile', 'san.ext'],
  ]);
  openssl(dir, [
    ...['pkcs12', '-export', '-in', 'broker.pem', '-inkey', 'broker.key', '-certfile', 'ca.pem'],
    ...['-name', 'broker', '-out', 'broker.p12', '-passout', `pass:${storePassword}`],
  ]);
}

/** Starts a single-node KRaft broker with a SASL_SSL (SCRAM-SHA-512) listener on free ports. */
export async function startSecuredKafka(options: { heapMb?: number } = {}): Promise<SecuredKafka> {
  const jvm = kafkaJvm(options.heapMb ?? 512);
  const dir = mkdtempSync(join(tmpdir(), 'nest-outbox-secured-kafka-'));
  const storePassword = randomBytes(12).toString('hex');
  const users = {
    relay: { username: 'relay', password: randomBytes(12).toString('hex') },
    inbox: { username: 'inbox', password: randomBytes(12).toString('hex') },
  };
  makeCertificates(dir, storePassword);
  const [port, plainPort, controllerPort] = (await freePorts(3)) as [number, number, number];
  const listeners = `SASL_SSL://127.0.0.1:${port},INTERNAL://127.0.0.1:${plainPort}`;
  const props = readFileSync(join(REPO_ROOT, 'scripts/kafka/server.properties'), 'utf8')
    .replace(/@LOG_DIR@/g, join(dir, 'data'))
    .replace(/^listeners=.*$/m, `listeners=${listeners},CONTROLLER://127.0.0.1:${controllerPort}`)
    .replace(/^advertised\.listeners=.*$/m, `advertised.listeners=${listeners}`)
    .replace(/^inter\.broker\.listener\.name=.*$/m, 'inter.broker.listener.name=INTERNAL')
    .replace(
      /^listener\.security\.protocol\.map=.*$/m,
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT,SASL_SSL:SASL_SSL',
    )
    .replace(/9093/g, String(controllerPort))
    .concat(
      [
        'sasl.enabled.mechanisms=SCRAM-SHA-512',
        'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
        `ssl.keystore.location=${join(dir, 'broker.p12')}`,
        'ssl.keystore.type=PKCS12',
        `ssl.keystore.password=${storePassword}`,
        `ssl.key.password=${storePassword}`,
        'ssl.client.auth=none',
        '',
      ].join('\n'),
    );
  const scram = Object.values(users).flatMap((u) => [
    '--add-scram',
    `SCRAM-SHA-512=[name=${u.username},password=${u.password}]`,
  ]);
  const node = KafkaNodeProcess.format(
    port,
    join(dir, 'server.properties'),
    props,
    jvm,
    kafkaClusterId(jvm),
    scram,
  );
  await node.start();
  const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
  const brokers = [`127.0.0.1:${port}`];
  return {
    brokers,
    plaintextBrokers: [`127.0.0.1:${plainPort}`],
    ca,
    otherCa: readFileSync(join(dir, 'other.pem'), 'utf8'),
    users,
    clientConfig: (user, trusted = ca) => ({
      brokers,
      ssl: { ca: [trusted] },
      sasl: { mechanism: 'scram-sha-512', username: user.username, password: user.password },
    }),
    secrets: [storePassword, users.relay.password, users.inbox.password],
    async destroy() {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
