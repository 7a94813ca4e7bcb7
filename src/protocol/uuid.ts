/**
 * Kafka UUIDs (topic ids) travel as 16 raw bytes and are shown, as Kafka's
 * Uuid.toString() does, in URL-safe base64 without padding (22 characters).
 */
import { asUuidV4, secureRandomBytes } from '../util/secure-random.js';
import { DecodeError } from './primitives/decode-error.js';

export function uuidFromBytes(bytes: Buffer): string {
  return bytes.toString('base64url');
}

export function uuidToBytes(uuid: string): Buffer {
  const bytes = Buffer.from(uuid, 'base64url');
  if (bytes.length !== 16) throw new DecodeError(`not a 16-byte uuid: '${uuid}'`);
  return bytes;
}

/** A random (version 4) uuid; Kafka reserves the all-zero and METADATA_TOPIC_ID values. */
export function randomUuid(random: () => Buffer = () => secureRandomBytes(16)): string {
  return uuidFromBytes(asUuidV4(random()));
}
