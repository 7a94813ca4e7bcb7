/**
 * The one error type every decoder throws for bytes that do not parse
 * (truncated, malformed, out of range). Callers map it to a wire code:
 * CORRUPT_MESSAGE for record data, INVALID_REQUEST for request frames.
 * Never an assertion: these bytes come from the network or the disk.
 */
export class DecodeError extends Error {
  readonly code = 'ERR_TRIB_DECODE';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DecodeError';
  }
}
