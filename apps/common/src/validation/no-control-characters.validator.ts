import { registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * C0 controls (NUL included), DEL and C1 controls: PostgreSQL refuses NUL in `text` and
 * `\u0000` in `jsonb`, and the others forge lines in logs and terminals.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * True when `text` holds no control character and no unpaired UTF-16 surrogate, i.e. when
 * PostgreSQL stores it as sent: an unpaired surrogate cannot be encoded in UTF-8 (the
 * driver silently replaces it) and `jsonb` refuses it outright.
 */
export function isPrintableText(text: string): boolean {
  return !CONTROL.test(text) && !UNPAIRED_SURROGATE.test(text);
}

/**
 * Rejects a string holding a control character (NUL, line breaks, escapes...) or an
 * unpaired surrogate. Non-strings pass: combine with `@IsString()`.
 * The message names the property, never the value.
 *
 * @example
 * class CreateNoteDto {
 *   @IsString() @NoControlCharacters() title!: string;
 * }
 */
export function NoControlCharacters(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'noControlCharacters',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: '$property must not contain control characters or unpaired surrogates',
        ...options,
      },
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || isPrintableText(value),
      },
    });
  };
}
