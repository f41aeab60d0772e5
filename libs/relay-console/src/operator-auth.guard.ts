import { createHash, timingSafeEqual } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import {
  Inject,
  Injectable,
  Logger,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type { ResolvedConsoleAuth } from './relay-console.options';
import { CONSOLE_AUTH } from './relay-console.constants';

interface OperatorRequest {
  headers: Record<string, string | string[] | undefined>;
  socket: Partial<Pick<TLSSocket, 'authorized' | 'getPeerCertificate'>>;
  operator?: string;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The operator a request authenticated as, set by `OperatorAuthGuard`. @internal */
export function operatorOf(request: unknown): string {
  return (request as OperatorRequest).operator ?? 'unknown';
}

/** A valid bearer token (constant time, every token compared) or a verified client certificate; else 401. @internal */
@Injectable()
export class OperatorAuthGuard implements CanActivate {
  private readonly logger = new Logger('RelayConsole');

  constructor(@Inject(CONSOLE_AUTH) private readonly auth: ResolvedConsoleAuth) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<OperatorRequest>();
    const operator = this.auth.mode === 'bearer' ? this.bearer(request) : this.certificate(request);
    if (operator === undefined) {
      this.logger.warn(`operator request refused (${this.auth.mode}): no valid credentials`);
      throw new UnauthorizedException('a valid operator credential is required');
    }
    request.operator = operator;
    return true;
  }

  private bearer(request: OperatorRequest): string | undefined {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (\S+)$/.exec(header) : null;
    if (!match || this.auth.mode !== 'bearer') return undefined;
    const offered = digest(match[1]!);
    let operator: string | undefined;
    // Every token is compared (no early exit), each in constant time.
    for (const [name, token] of this.auth.tokens)
      if (timingSafeEqual(offered, digest(token)) && operator === undefined) operator = name;
    return operator;
  }

  private certificate(request: OperatorRequest): string | undefined {
    if (this.auth.mode !== 'mtls' || request.socket.authorized !== true) return undefined;
    const subject = request.socket.getPeerCertificate?.()?.subject as
      | { CN?: string | string[] }
      | undefined;
    const cn = Array.isArray(subject?.CN) ? subject.CN[0] : subject?.CN;
    if (!cn) return undefined;
    const allowed = this.auth.allowedSubjects;
    return allowed === undefined || allowed.includes(cn) ? `cn:${cn}` : undefined;
  }
}
