/**
 * The SCRAM computations of RFC 5802 (section 3) for SHA-256 and SHA-512
 * (RFC 7677), shared by the server side (src/security/sasl), the client side
 * (src/net) and the controller, which turns a salted password from
 * AlterUserScramCredentials into the stored and server keys it keeps.
 *
 *   SaltedPassword  := Hi(Normalize(password), salt, i)
 *   ClientKey       := HMAC(SaltedPassword, "Client Key")
 *   StoredKey       := H(ClientKey)
 *   ServerKey       := HMAC(SaltedPassword, "Server Key")
 *   ClientSignature := HMAC(StoredKey, AuthMessage)
 *   ClientProof     := ClientKey XOR ClientSignature
 *   ServerSignature := HMAC(ServerKey, AuthMessage)
 *
 * Hi is PBKDF2 with HMAC of the hash and an output of one hash length. The
 * password is used as UTF-8 without SASLprep (as Kafka's ScramFormatter).
 */
import { nodeCrypto } from './lazy-builtins.js';

export type ScramHash = 'sha256' | 'sha512';

/** Bytes of one digest of the hash. */
export function digestBytes(hash: ScramHash): number {
  return hash === 'sha256' ? 32 : 64;
}

export function hmac(hash: ScramHash, key: Buffer, text: Buffer | string): Buffer {
  return nodeCrypto().createHmac(hash, key).update(text).digest();
}

export function digest(hash: ScramHash, data: Buffer): Buffer {
  return nodeCrypto().createHash(hash).update(data).digest();
}

/** Hi(password, salt, iterations) of RFC 5802: PBKDF2-HMAC with one block of output. */
export function saltedPassword(hash: ScramHash, password: string, salt: Buffer, iterations: number): Buffer {
  return nodeCrypto().pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, digestBytes(hash), hash);
}

export function clientKey(hash: ScramHash, salted: Buffer): Buffer {
  return hmac(hash, salted, 'Client Key');
}

export function storedKey(hash: ScramHash, salted: Buffer): Buffer {
  return digest(hash, clientKey(hash, salted));
}

export function serverKey(hash: ScramHash, salted: Buffer): Buffer {
  return hmac(hash, salted, 'Server Key');
}

export function xor(a: Buffer, b: Buffer): Buffer {
  if (a.length !== b.length) throw new RangeError(`xor of ${a.length} and ${b.length} bytes`);
  const out = Buffer.allocUnsafe(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] as number) ^ (b[i] as number);
  return out;
}

/** Equality that takes the same time wherever the first difference is (lengths are not secret). */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && nodeCrypto().timingSafeEqual(a, b);
}

/** `saslname` of RFC 5802 5.1: ',' and '=' escaped as =2C and =3D. */
export function escapeSaslName(name: string): string {
  return name.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

/** The inverse of escapeSaslName; null when an '=' is not followed by 2C or 3D. */
export function unescapeSaslName(text: string): string | null {
  if (/=(?!2C|3D)/.test(text)) return null;
  return text.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

/**
 * Parses `a=1,b=2` SCRAM attributes (RFC 5802 5.1). Null when an attribute
 * is not `letter=value` or a letter repeats.
 */
export function parseScramAttributes(text: string): Map<string, string> | null {
  const out = new Map<string, string>();
  for (const part of text.split(',')) {
    const m = /^([A-Za-z])=(.*)$/s.exec(part);
    if (m === null || out.has(m[1] as string)) return null;
    out.set(m[1] as string, m[2] as string);
  }
  return out;
}
