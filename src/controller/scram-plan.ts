/**
 * AlterUserScramCredentials (51, KIP-554) as the controller decides it: Kafka's
 * ScramControlManager rules, a pure function of the image.
 *
 * - A (user, mechanism) named twice in one request: DUPLICATE_RESOURCE.
 * - An empty user name, or an empty salt or salted password: UNACCEPTABLE_CREDENTIAL.
 * - A mechanism other than 1 (SCRAM-SHA-256) or 2 (SCRAM-SHA-512): UNSUPPORTED_SASL_MECHANISM.
 * - Iterations outside 4096..16384: UNACCEPTABLE_CREDENTIAL (Kafka's ScramMechanism bounds).
 * - Deleting a credential that does not exist: RESOURCE_NOT_FOUND.
 *
 * One result per user, in order of first mention; a user with any failing
 * change gets none of its changes applied (all of a user's changes are one unit).
 * Upsertions carry the salted password (the client ran Hi()); the controller
 * keeps only StoredKey and ServerKey (RFC 5802), never the salted password.
 */
import { ErrorCode } from '../protocol/errors.js';
import { serverKey, storedKey, type ScramHash } from '../util/scram.js';
import type { MetadataImage } from './metadata/image.js';
import type { MetadataRecord } from './metadata/records.js';
import type { Plan } from './plans.js';

export const SCRAM_ITERATIONS_MIN = 4096;
export const SCRAM_ITERATIONS_MAX = 16384;

export interface ScramDeletion {
  readonly name: string;
  readonly mechanism: number;
}

export interface ScramUpsertion extends ScramDeletion {
  readonly iterations: number;
  readonly salt: Buffer;
  readonly saltedPassword: Buffer;
}

export interface ScramAlterResult {
  user: string;
  errorCode: ErrorCode;
  errorMessage: string | null;
}

const HASH_OF: Readonly<Record<number, ScramHash>> = { 1: 'sha256', 2: 'sha512' };

type Failure = { errorCode: ErrorCode; errorMessage: string };

function problemOf(image: MetadataImage, op: ScramDeletion | ScramUpsertion): Failure | null {
  if (op.name === '') return { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Username must not be empty.' };
  if (HASH_OF[op.mechanism] === undefined) return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, errorMessage: 'Unknown SCRAM mechanism.' };
  if (!('iterations' in op)) {
    if (image.scramCredentials.get(op.name, op.mechanism) === undefined) {
      return { errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to delete a user credential that does not exist.' };
    }
    return null;
  }
  if (op.iterations < SCRAM_ITERATIONS_MIN) return { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: `Too few iterations: at least ${SCRAM_ITERATIONS_MIN}.` };
  if (op.iterations > SCRAM_ITERATIONS_MAX) return { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: `Too many iterations: at most ${SCRAM_ITERATIONS_MAX}.` };
  if (op.salt.length === 0 || op.saltedPassword.length === 0) return { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'The salt and the salted password must not be empty.' };
  return null;
}

function recordOf(op: ScramDeletion | ScramUpsertion): MetadataRecord {
  if (!('iterations' in op)) return { type: 'RemoveUserScramCredentialRecord', data: { name: op.name, mechanism: op.mechanism } };
  const hash = HASH_OF[op.mechanism] as ScramHash;
  return {
    type: 'UserScramCredentialRecord',
    data: { name: op.name, mechanism: op.mechanism, salt: op.salt, storedKey: storedKey(hash, op.saltedPassword), serverKey: serverKey(hash, op.saltedPassword), iterations: op.iterations },
  };
}

export function planAlterScramCredentials(image: MetadataImage, deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): Plan<ScramAlterResult> {
  const ops: (ScramDeletion | ScramUpsertion)[] = [...deletions, ...upsertions];
  const failures = new Map<string, Failure>();
  const seen = new Set<string>();
  for (const op of ops) {
    const key = `${op.mechanism}\u0000${op.name}`;
    const problem = seen.has(key)
      ? { errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: 'A user credential cannot be altered twice in the same request.' }
      : problemOf(image, op);
    seen.add(key);
    if (problem !== null && !failures.has(op.name)) failures.set(op.name, problem);
  }
  const users = [...new Set(ops.map((op) => op.name))];
  const results = users.map((user): ScramAlterResult => {
    const f = failures.get(user);
    return f === undefined ? { user, errorCode: ErrorCode.NONE, errorMessage: null } : { user, ...f };
  });
  const records = ops.filter((op) => !failures.has(op.name)).map(recordOf);
  return { results, records };
}
