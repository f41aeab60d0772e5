import { applyDecorators } from '@nestjs/common';
import { IsString, Matches, MaxLength } from 'class-validator';
import { NoControlCharacters } from './no-control-characters.validator';

/**
 * A one-line text field stored in a PostgreSQL `text` column: a string, not blank, at
 * most `maxLength` UTF-16 units, without control characters or unpaired surrogates.
 *
 * @example
 * class CreateOrderDto {
 *   @IsPlainText({ maxLength: 100 }) customerId!: string;
 * }
 */
export function IsPlainText(options: { readonly maxLength: number }): PropertyDecorator {
  return applyDecorators(
    IsString(),
    Matches(/\S/, { message: '$property must not be blank' }),
    MaxLength(options.maxLength),
    NoControlCharacters(),
  );
}
