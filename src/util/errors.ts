/**
 * The root of every error Tributary's library code throws to its users: a
 * stable `code` (`ERR_TRIB_*`, as undici and fastify do) that callers branch
 * on instead of parsing messages, and the underlying error as `cause`.
 *
 * It lives here, at the bottom of the import graph, so that the protocol
 * layer's `DecodeError` and the client's errors share one base class:
 * `err instanceof TributaryError` is true for anything the client throws
 * on purpose. The client's codes are listed in src/net/errors.ts.
 */
export class TributaryError<Code extends string = string> extends Error {
  /** Stable machine-readable code, e.g. `ERR_TRIB_KAFKA`; never changes between releases. */
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'TributaryError';
  }
}
