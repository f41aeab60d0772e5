/** What the outbox reads of a driver's error, and of the errors ORMs wrap around it. */
interface DriverErrorLike {
  /** PostgreSQL's SQLSTATE (node-postgres, and the ORMs that copy it), or Prisma's `P....`. */
  readonly code?: unknown;
  /** The SQLSTATE in Prisma's driver adapter error. */
  readonly originalCode?: unknown;
  /** A constraint's name (node-postgres), or `{ index }` (Prisma's driver adapter). */
  readonly constraint?: unknown;
  readonly cause?: unknown;
  readonly driverError?: unknown;
  readonly meta?: { readonly driverAdapterError?: unknown };
}

/** `error` and the errors it wraps (`driverError`, `cause`, `meta.driverAdapterError`), outermost first. @internal */
export function driverErrorChain(error: unknown): DriverErrorLike[] {
  const chain: DriverErrorLike[] = [];
  const visit = (e: unknown): void => {
    if (typeof e !== 'object' || e === null || chain.length > 8) return;
    const like = e as DriverErrorLike;
    if (chain.includes(like)) return;
    chain.push(like);
    for (const inner of [like.driverError, like.cause, like.meta?.driverAdapterError]) visit(inner);
  };
  visit(error);
  return chain;
}

export function sqlStateOf(error: DriverErrorLike): string | undefined {
  const code = error.originalCode ?? error.code;
  return typeof code === 'string' ? code : undefined;
}

export function constraintOf(error: DriverErrorLike): unknown {
  const { constraint } = error;
  return typeof constraint === 'object' && constraint !== null
    ? (constraint as { index?: unknown }).index
    : constraint;
}
