import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { checkRequestShape } from './request-shape.check';
import {
  InvalidRequestException,
  shownFieldName,
  type RejectedField,
} from '../http/invalid-request.exception';

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

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The sample apps' global pipe: Nest's `ValidationPipe` with `whitelist`,
 * `forbidNonWhitelisted` and `transform`, answering `InvalidRequestException` (400 naming
 * each field, never its value). Before the DTO's rules it refuses what they cannot judge:
 * a body that is not a JSON object, and the shapes the pipe's own walks break on
 * (`checkRequestShape`: deep nesting, nested `constructor` keys).
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
    const misshapen = where ? checkRequestShape(value, where) : undefined;
    if (misshapen) throw new InvalidRequestException([misshapen]);
    return super.transform(value, metadata);
  }
}
