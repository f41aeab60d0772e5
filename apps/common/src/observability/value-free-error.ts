const CLASS_NAME = /^[A-Za-z_$][\w$]{0,63}$/;
const CODE = /^[\w.-]{1,40}$/;

/**
 * What may be logged of an error whose message could echo input: its class and its code
 * (a PostgreSQL SQLSTATE such as `22P02`, a Node code such as `ECONNREFUSED`), e.g.
 * `QueryFailedError code=22P02`. Never the message, the stack (its first line is the
 * message), the SQL parameters or any other property: PostgreSQL and validators echo values
 * there. A class name or code that does not look like one is left out.
 */
export function describeErrorWithoutValues(error: unknown): string {
  if (typeof error !== 'object' || error === null) return `thrown ${typeof error}`;
  const name = (error as { constructor?: { name?: unknown } }).constructor?.name;
  const code = (error as { code?: unknown }).code;
  const className = typeof name === 'string' && CLASS_NAME.test(name) ? name : 'Error';
  const codeText =
    (typeof code === 'string' || typeof code === 'number') && CODE.test(String(code));
  return codeText ? `${className} code=${String(code)}` : className;
}
