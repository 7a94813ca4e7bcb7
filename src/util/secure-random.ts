/**
 * Random bytes from the operating system's CSPRNG for ids (topic ids, fetch
 * session ids, group member ids), without loading node:crypto.
 *
 * Why not node:crypto: loading it keeps about 2 MiB resident in a process
 * that otherwise never needs it (a broker without TLS or SASL), and the first
 * topic would load it (bench/README.md, "Idle RSS"). /dev/urandom is the
 * kernel's CSPRNG, the same source OpenSSL seeds from; where it cannot be
 * read (not a Unix), node:crypto serves, loaded then.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { nodeCrypto } from './lazy-builtins.js';

const URANDOM = '/dev/urandom';
let urandomReadable = true;

/** `n` cryptographically secure random bytes. */
export function secureRandomBytes(n: number): Buffer {
  if (urandomReadable) {
    const out = Buffer.allocUnsafe(n);
    try {
      const fd = openSync(URANDOM, 'r');
      try {
        let filled = 0;
        while (filled < n) {
          const got = readSync(fd, out, filled, n - filled, null);
          if (got <= 0) throw new Error(`${URANDOM} returned no bytes`);
          filled += got;
        }
      } finally {
        closeSync(fd);
      }
      return out;
    } catch (err) {
      // Out of file descriptors is transient: the caller's request fails and is retried.
      if ((err as NodeJS.ErrnoException).code === 'EMFILE' || (err as NodeJS.ErrnoException).code === 'ENFILE') throw err;
      urandomReadable = false;
    }
  }
  return nodeCrypto().randomBytes(n);
}

/** A random integer in [min, max), as crypto.randomInt (the modulo bias is below 2^-16 for ranges under 2^32). */
export function secureRandomInt(min: number, max: number): number {
  const range = max - min;
  if (!Number.isInteger(min) || !Number.isInteger(max) || range <= 0 || range > 0xffffffff) throw new RangeError(`bad range [${min}, ${max})`);
  // 48 random bits: the bias of the modulo is at most range / 2^48.
  const b = secureRandomBytes(6);
  return min + (b.readUIntBE(0, 6) % range);
}

/** Marks 16 random bytes as a version 4 (random), RFC 4122 variant UUID; returns them. */
export function asUuidV4(b: Buffer): Buffer {
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  return b;
}

/** A random (version 4) UUID in its usual text form, 8-4-4-4-12 hex digits (java.util.UUID's and crypto.randomUUID's). */
export function secureRandomUuidString(): string {
  const h = asUuidV4(secureRandomBytes(16)).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
