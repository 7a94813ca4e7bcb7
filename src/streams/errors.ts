/**
 * Errors the Streams API throws to its users: a `StreamsError` with a stable
 * `code` (listed in src/streams/README.md and docs/streams.md).
 */
import { TributaryError } from '../util/errors.js';

/** The stable codes of `StreamsError`. */
export const StreamsErrorCode = {
  /** The topology is invalid (unknown store, cycle, missing source, duplicate name): found at `build()` or when added. */
  TOPOLOGY: 'ERR_STREAMS_TOPOLOGY',
  /** A config value is invalid or names a feature the platform does not support yet. */
  CONFIG: 'ERR_STREAMS_CONFIG',
  /** A key or value could not be serialized or deserialized. */
  SERDE: 'ERR_STREAMS_SERDE',
  /** The KafkaStreams instance is in a state where the call is not allowed. */
  STATE: 'ERR_STREAMS_STATE',
  /** A store was not found or cannot be queried (yet). */
  STORE: 'ERR_STREAMS_STORE',
  /** Source topics that must be co-partitioned have different partition counts. */
  COPARTITION: 'ERR_STREAMS_COPARTITION',
  /** A processor threw while processing a record or a punctuation. */
  PROCESSING: 'ERR_STREAMS_PROCESSING',
} as const;

/** One of `StreamsErrorCode`'s values. */
export type StreamsErrorCode = (typeof StreamsErrorCode)[keyof typeof StreamsErrorCode];

/** What the Streams API throws on purpose. */
export class StreamsError extends TributaryError<StreamsErrorCode> {
  constructor(code: StreamsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'StreamsError';
  }
}
