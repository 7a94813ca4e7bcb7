/**
 * Kafka uuids (cluster ids, topic ids, incarnation and directory ids) drawn
 * from an injected Random, so seeded runs are reproducible. Shown as Kafka's
 * Uuid.toString(): 22 characters of unpadded URL-safe base64.
 */
import { uuidFromBytes } from '../protocol/uuid.js';
import { ZERO_UUID } from '../protocol/codec.js';
import type { Random } from '../util/random.js';

/** Kafka reserves the id of the metadata topic (and the zero uuid). */
export const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/** A version 4 uuid; never a reserved value nor one starting with '-' (as Kafka's Uuid.randomUuid). */
export function randomUuid(random: Random): string {
  for (;;) {
    const b = Buffer.alloc(16);
    for (let i = 0; i < 16; i++) b[i] = random.int(256);
    b[6] = ((b[6] as number) & 0x0f) | 0x40;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    const id = uuidFromBytes(b);
    if (id !== ZERO_UUID && id !== METADATA_TOPIC_ID && !id.startsWith('-')) return id;
  }
}

/** Whether `s` is a Kafka uuid string (22 base64url characters encoding 16 bytes). */
export function isUuidString(s: string): boolean {
  return /^[A-Za-z0-9_-]{21}[AQgw]$/.test(s);
}
