import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import {
  InvalidRequestException,
  shownFieldName,
  type RejectedField,
} from '../http/invalid-request.exception';

/** Deepest nesting a request's body or query may have (the DTOs need 2). */
export const MAX_REQUEST_DEPTH = 16;

/** At most this many rejected fields are named in one answer. */
const MAX_REJECTED = 20;

/** Rejected fields of class-validator errors, nested ones as `parent.child`. */
function rejectedFields(errors: readonly ValidationError[]): RejectedField[] {
  const out: RejectedField[] = [];
  const pending = errors.map((error) => ({ error, path: shownFieldName(error.property) }));
  for (let next = pending.shift(); next && out.length < MAX_REJECTED; next = pending.shift()) {
    const { error, path } = next;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      // An unknown key is the client's text: name it cut to length, as the field is.
      const text =
        constraint === 'whitelistValidation' ? `property ${path} should not exist` : message;
      out.push({ field: path, message: text });
    }
    for (const child of error.children ?? []) {
      pending.push({ error: child, path: `${path}.${shownFieldName(child.property)}` });
    }
  }
  return out;
}

/**
 * The top-level field under which `value` nests deeper than `maxDepth` (`''` when the value
 * itself is the offender), or `undefined`. Walks with its own stack: a hostile body nested
 * thousands deep must not exhaust the call stack here, nor reach the recursive walks of
 * the ValidationPipe and class-transformer.
 */
function tooDeepField(value: unknown, maxDepth: number): string | undefined {
  const stack: { node: unknown; depth: number; field: string }[] = [
    { node: value, depth: 0, field: '' },
  ];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (typeof item.node !== 'object' || item.node === null) continue;
    if (item.depth >= maxDepth) return item.field;
    for (const [key, child] of Object.entries(item.node)) {
      stack.push({
        node: child,
        depth: item.depth + 1,
        field: item.depth === 0 ? key : item.field,
      });
    }
  }
  return undefined;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The sample apps' global pipe: Nest's `ValidationPipe` with `whitelist`,
 * `forbidNonWhitelisted` and `transform`, answering `InvalidRequestException` (400 naming
 * each field, never its value). Before the DTO's rules it refuses what they cannot judge:
 * a body that is not a JSON object, and nesting deeper than `MAX_REQUEST_DEPTH`.
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new InvalidRequestException(rejectedFields(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const whole = metadata.data === undefined;
    const where =
      whole && (metadata.type === 'body' || metadata.type === 'query') ? metadata.type : undefined;
    if (where === 'body' && value !== undefined && value !== null && !isPlainObject(value)) {
      throw new InvalidRequestException([{ field: 'body', message: 'body must be a JSON object' }]);
    }
    const deep = where ? tooDeepField(value, MAX_REQUEST_DEPTH) : undefined;
    if (deep !== undefined) {
      const field = deep === '' ? where! : shownFieldName(deep);
      throw new InvalidRequestException([
        { field, message: `${field} must not be nested deeper than ${MAX_REQUEST_DEPTH} levels` },
      ]);
    }
    return super.transform(value, metadata);
  }
}
