/** DI token of the console's resolved access control. @internal */
export const CONSOLE_AUTH = Symbol('nest-outbox:relay-console-auth');
/** DI token of the console's pressure hook. @internal */
export const CONSOLE_PRESSURE = Symbol('nest-outbox:relay-console-pressure');
