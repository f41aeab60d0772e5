import { shownFieldName, type RejectedField } from '../http/invalid-request.exception';

/** Deepest nesting a request's body or query may have (the DTOs need 2). */
export const MAX_REQUEST_DEPTH = 16;

interface Visit {
  readonly node: unknown;
  readonly depth: number;
  /** The top-level field the node is under (`''` for the value itself). */
  readonly field: string;
}

/**
 * What the ValidationPipe's own walks cannot survive, found before they run:
 * - nesting deeper than `MAX_REQUEST_DEPTH` (the pipe and class-transformer recurse: a body
 *   nested thousands deep exhausts the call stack, a 500);
 * - an object with its own `constructor` key: below the top level class-transformer 0.5.1
 *   takes it for a class and throws a `TypeError` (a 500); at the top level the pipe
 *   overwrites it instead of refusing it as an unknown field.
 * Walks with its own stack. Returns the rejected top-level field (`where` when the value
 * itself is the offender), or `undefined`.
 */
export function checkRequestShape(value: unknown, where: string): RejectedField | undefined {
  const stack: Visit[] = [{ node: value, depth: 0, field: '' }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (typeof item.node !== 'object' || item.node === null) continue;
    const field = item.field === '' ? where : shownFieldName(item.field);
    if (item.depth >= MAX_REQUEST_DEPTH) {
      return {
        field,
        message: `${field} must not be nested deeper than ${MAX_REQUEST_DEPTH} levels`,
      };
    }
    if (item.depth === 0 && Object.hasOwn(item.node, 'constructor')) {
      return { field: 'constructor', message: 'property constructor should not exist' };
    }
    if (Object.hasOwn(item.node, 'constructor')) {
      return { field, message: `${field} must not hold objects with a "constructor" key` };
    }
    for (const [key, node] of Object.entries(item.node)) {
      stack.push({ node, depth: item.depth + 1, field: item.depth === 0 ? key : item.field });
    }
  }
  return undefined;
}
