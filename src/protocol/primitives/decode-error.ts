/**
 * The one error type every decoder throws for bytes that do not parse
 * (truncated, malformed, out of range). Callers map it to a wire code:
 * CORRUPT_MESSAGE for record data, INVALID_REQUEST for request frames.
 * Never an assertion: these bytes come from the network or the disk.
 * A `TributaryError` with code `ERR_TRIB_DECODE`, so client users catch it
 * with the client's other errors.
 */
import { TributaryError } from '../../util/errors.js';

/** Bytes that do not parse (code `ERR_TRIB_DECODE`). */
export class DecodeError extends TributaryError<'ERR_TRIB_DECODE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_TRIB_DECODE', message, options);
    this.name = 'DecodeError';
  }
}
