import type { PressureView } from '@nest-outbox/relay';
import type { DynamicModule } from '@nestjs/common';
import { ConsoleAccessError } from './console-access.error';

/** Bearer tokens by operator name (the audited actor), or mTLS (the certificate's CN is the actor). @publicApi */
export type RelayConsoleAuth =
  | { readonly bearer: { readonly tokens: Readonly<Record<string, string>> } }
  | { readonly mtls: { readonly allowedSubjects?: readonly string[] } };

/** What the pressure sampler says (`ok`, `warn`, `critical`) and why. @publicApi */
export type ConsolePressure = PressureView;

/** Options of `RelayConsoleModule.register()`. @publicApi */
export interface RelayConsoleOptions {
  /** The `RelayModule.forRoot(...)` module the app imports (the very same object). */
  readonly relay: DynamicModule;
  /** Access control; required (the console refuses to start without it). */
  readonly auth: RelayConsoleAuth | undefined;
  /** The process's pressure state; by default the relay's own (`RelayOverviewService`). */
  readonly pressure?: () => ConsolePressure | Promise<ConsolePressure>;
}

/** @internal */
export type ResolvedConsoleAuth =
  | { readonly mode: 'bearer'; readonly tokens: ReadonlyMap<string, string> }
  | { readonly mode: 'mtls'; readonly allowedSubjects: readonly string[] | undefined };

const ACTOR = /^[A-Za-z0-9._@-]{1,64}$/;
const MIN_TOKEN_LENGTH = 32;

/** @throws ConsoleAccessError for no access control, no or short tokens, unusable names @internal */
export function resolveConsoleAuth(auth: RelayConsoleAuth | undefined): ResolvedConsoleAuth {
  if (auth && 'mtls' in auth) {
    const subjects = auth.mtls.allowedSubjects;
    if (subjects !== undefined && subjects.length === 0)
      throw new ConsoleAccessError('auth.mtls.allowedSubjects is empty (omit it to allow any CN)');
    return { mode: 'mtls', allowedSubjects: subjects };
  }
  const tokens = Object.entries((auth && 'bearer' in auth && auth.bearer.tokens) || {});
  if (tokens.length === 0) throw new ConsoleAccessError('no access control is configured');
  for (const [actor, token] of tokens) {
    if (!ACTOR.test(actor))
      throw new ConsoleAccessError(
        `operator name ${JSON.stringify(actor.slice(0, 64))} must be 1-64 letters, digits or ._@-`,
      );
    if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH)
      throw new ConsoleAccessError(
        `the token of ${actor} is shorter than ${MIN_TOKEN_LENGTH} characters`,
      );
  }
  return { mode: 'bearer', tokens: new Map(tokens) };
}

/** Reads `name:token,name:token` (the standalone relay's RELAY_CONSOLE_TOKENS). @publicApi */
export function parseConsoleTokens(text: string | undefined): Record<string, string> {
  const tokens: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf(':');
    if (pair.trim() === '') continue;
    if (at <= 0) throw new ConsoleAccessError('RELAY_CONSOLE_TOKENS must read name:token,...');
    tokens[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return tokens;
}
