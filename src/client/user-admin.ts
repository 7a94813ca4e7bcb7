/**
 * SCRAM users (KIP-554) for Admin: AlterUserScramCredentials (51) and
 * DescribeUserScramCredentials (50). The password never travels: the client
 * picks a random salt and sends Hi(password, salt, iterations) (RFC 5802),
 * from which the controller derives the keys it stores.
 */
import { randomBytes } from 'node:crypto';
import { AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse } from '../protocol/messages/51-alter-user-scram-credentials.js';
import { DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse } from '../protocol/messages/50-describe-user-scram-credentials.js';
import { saltedPassword } from '../util/scram.js';
import { KafkaProtocolError, invalidArgument } from '../net/errors.js';
import { request, type ClientApi } from './apis.js';
import type { Cluster } from './cluster.js';

/** The SCRAM mechanisms of KIP-554 (ids 1 and 2 on the wire). */
export type ScramMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

const MECHANISM_IDS: Readonly<Record<ScramMechanism, number>> = { 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 };
const MECHANISM_NAMES: Readonly<Record<number, ScramMechanism>> = { 1: 'SCRAM-SHA-256', 2: 'SCRAM-SHA-512' };
/** Kafka's default for new credentials (ScramFormatter): 4096 iterations. */
export const SCRAM_ITERATIONS_DEFAULT = 4096;
const SALT_BYTES = 32;

const DescribeScram: ClientApi<typeof DescribeUserScramCredentialsRequest, typeof DescribeUserScramCredentialsResponse> = {
  request: DescribeUserScramCredentialsRequest, response: DescribeUserScramCredentialsResponse, minVersion: 0, maxVersion: 0,
};
const AlterScram: ClientApi<typeof AlterUserScramCredentialsRequest, typeof AlterUserScramCredentialsResponse> = {
  request: AlterUserScramCredentialsRequest, response: AlterUserScramCredentialsResponse, minVersion: 0, maxVersion: 0,
};

/** One change of `Admin.alterUserScramCredentials`: set a password (default 4096 iterations) or delete a mechanism's credential. */
export type ScramCredentialChange =
  | { readonly user: string; readonly mechanism: ScramMechanism; readonly password: string; readonly iterations?: number }
  | { readonly user: string; readonly mechanism: ScramMechanism; readonly delete: true };

/** One user's SCRAM credentials as described by the broker (no secrets). */
export interface UserScramCredentials {
  readonly user: string;
  readonly credentials: readonly { mechanism: ScramMechanism | `unknown(${number})`; iterations: number }[];
  /** RESOURCE_NOT_FOUND for a user without credentials, ... */
  readonly error: KafkaProtocolError | null;
}

/** The outcome of a user's changes. */
export interface UserResult {
  readonly user: string;
  readonly error: KafkaProtocolError | null;
}

function mechanismId(m: ScramMechanism): number {
  const id = MECHANISM_IDS[m];
  if (id === undefined) throw invalidArgument(`mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512, got ${String(m)}`);
  return id;
}

/** Sets or deletes SCRAM credentials; one result per user (all of a user's changes succeed or fail together). */
export async function alterUserScramCredentials(cluster: Cluster, changes: readonly ScramCredentialChange[]): Promise<UserResult[]> {
  const deletions = changes.filter((c) => 'delete' in c).map((c) => ({ name: c.user, mechanism: mechanismId(c.mechanism) }));
  const upsertions = changes.flatMap((c) => {
    if ('delete' in c) return [];
    const iterations = c.iterations ?? SCRAM_ITERATIONS_DEFAULT;
    const salt = randomBytes(SALT_BYTES);
    const hash = c.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512';
    return [{ name: c.user, mechanism: mechanismId(c.mechanism), iterations, salt, saltedPassword: saltedPassword(hash, c.password, salt, Math.max(1, iterations)) }];
  });
  const { response } = await cluster.withRetry(async () => request(await cluster.anyConnection(), AlterScram, () => ({ deletions, upsertions })));
  return response.results.map((r) => ({
    user: r.user,
    error: r.errorCode === 0 ? null : new KafkaProtocolError(r.errorCode, { api: 'AlterUserScramCredentials', serverMessage: r.errorMessage }),
  }));
}

/** The SCRAM mechanisms and iteration counts of `users` (empty: every user with a credential). */
export async function describeUserScramCredentials(cluster: Cluster, users: readonly string[] = []): Promise<UserScramCredentials[]> {
  const { response } = await cluster.withRetry(async () => request(await cluster.anyConnection(), DescribeScram, () => ({ users: users.length === 0 ? null : users.map((name) => ({ name })) })));
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, { api: 'DescribeUserScramCredentials', serverMessage: response.errorMessage });
  return response.results.map((r) => ({
    user: r.user,
    credentials: r.credentialInfos.map((c) => ({ mechanism: MECHANISM_NAMES[c.mechanism] ?? (`unknown(${c.mechanism})` as const), iterations: c.iterations })),
    error: r.errorCode === 0 ? null : new KafkaProtocolError(r.errorCode, { api: 'DescribeUserScramCredentials', serverMessage: r.errorMessage }),
  }));
}
