/**
 * Invariant checks for programmer assumptions. Input from the network or the
 * disk is validated with typed errors instead; an assertion failing means a
 * bug, and in storage or the controller it should stop the process.
 */
import { AssertionError } from 'node:assert';

export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError({ message: `invariant violated: ${message}` });
}

export function unreachable(value: never, what = 'value'): never {
  throw new AssertionError({ message: `unreachable ${what}: ${String(value)}` });
}
