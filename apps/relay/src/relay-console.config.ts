import { readFileSync } from 'node:fs';
import { parseConsoleTokens, type RelayConsoleAuth } from '@nest-outbox/relay-console';
import { EnvReader } from '../../common/src';

/** The standalone relay's operator console, as the environment configures it. */
export type RelayConsoleConfig =
  | { readonly enabled: false }
  | {
      readonly enabled: true;
      /** Undefined when neither tokens nor TLS are given: the console refuses to start. */
      readonly auth: RelayConsoleAuth | undefined;
      /** HTTPS with client certificates (mTLS), when RELAY_CONSOLE_TLS_* are set. */
      readonly https?: {
        cert: Buffer;
        key: Buffer;
        ca: Buffer;
        requestCert: true;
        rejectUnauthorized: false;
      };
    };

/**
 * RELAY_CONSOLE (`on`, the default, or `off`): the operator console at /operator.
 * Access: RELAY_CONSOLE_TOKENS=`name:token,...` (bearer tokens of 32+ characters, one per
 * operator), or mTLS with RELAY_CONSOLE_TLS_CERT, RELAY_CONSOLE_TLS_KEY (the server's) and
 * RELAY_CONSOLE_TLS_CA (the CA that signs operators' client certificates; the whole HTTP
 * server then speaks HTTPS), optionally RELAY_CONSOLE_MTLS_SUBJECTS=`cn1,cn2`. With the
 * console on and neither given, the relay does not start (`ConsoleAccessError`).
 * @throws InvalidOptionsError when RELAY_CONSOLE is neither on nor off
 */
export function relayConsoleFromEnv(env: NodeJS.ProcessEnv = process.env): RelayConsoleConfig {
  const mode = new EnvReader('relay app', env).oneOf('RELAY_CONSOLE', ['on', 'off'], 'on');
  if (mode === 'off') return { enabled: false };
  const { RELAY_CONSOLE_TLS_CERT: cert, RELAY_CONSOLE_TLS_KEY: key } = env;
  const ca = env.RELAY_CONSOLE_TLS_CA;
  if (cert && key && ca) {
    const subjects = env.RELAY_CONSOLE_MTLS_SUBJECTS?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return {
      enabled: true,
      auth: { mtls: { allowedSubjects: subjects?.length ? subjects : undefined } },
      https: {
        cert: readFileSync(cert),
        key: readFileSync(key),
        ca: readFileSync(ca),
        requestCert: true,
        // A client without a certificate gets a 401 from the console, not a failed handshake.
        rejectUnauthorized: false,
      },
    };
  }
  const tokens = parseConsoleTokens(env.RELAY_CONSOLE_TOKENS);
  return {
    enabled: true,
    auth: Object.keys(tokens).length ? { bearer: { tokens } } : undefined,
  };
}
