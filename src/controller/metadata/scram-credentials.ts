/**
 * The SCRAM credentials part of the MetadataImage (KIP-554): one credential
 * per (user, mechanism), set by UserScramCredentialRecord and removed by
 * RemoveUserScramCredentialRecord. Brokers verify SCRAM logins against it
 * (src/security/sasl) and DescribeUserScramCredentials lists it; the salted
 * password itself is never stored, only the salt, stored key and server key.
 *
 * Mechanism ids are Kafka's ScramMechanism: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
 */
import { invariant } from '../../util/assert.js';
import type { MetadataRecord, RecordOf } from './records.js';

export const ScramMechanismId = { 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 } as const;
export type ScramMechanismName = keyof typeof ScramMechanismId;

/** The mechanism name of a Kafka ScramMechanism id; undefined for 0 (UNKNOWN) and others. */
export function scramMechanismName(id: number): ScramMechanismName | undefined {
  return id === 1 ? 'SCRAM-SHA-256' : id === 2 ? 'SCRAM-SHA-512' : undefined;
}

export interface ScramCredential {
  readonly user: string;
  readonly mechanism: number;
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

export class ScramCredentials {
  /** user -> mechanism id -> credential. */
  private readonly byUser = new Map<string, Map<number, ScramCredential>>();

  get(user: string, mechanism: number): ScramCredential | undefined {
    return this.byUser.get(user)?.get(mechanism);
  }

  /** A user's credentials, by mechanism id. */
  ofUser(user: string): readonly ScramCredential[] {
    return [...(this.byUser.get(user)?.values() ?? [])].sort((a, b) => a.mechanism - b.mechanism);
  }

  /** Users with at least one credential, sorted. */
  users(): string[] {
    return [...this.byUser.keys()].sort();
  }

  apply(record: RecordOf<'UserScramCredentialRecord'> | RecordOf<'RemoveUserScramCredentialRecord'>): void {
    const { name, mechanism } = record.data;
    invariant(scramMechanismName(mechanism) !== undefined, `SCRAM credential of ${name} with unknown mechanism ${mechanism}`);
    if (record.type === 'RemoveUserScramCredentialRecord') {
      const forUser = this.byUser.get(name);
      invariant(forUser?.delete(mechanism) === true, `RemoveUserScramCredentialRecord for ${name} mechanism ${mechanism}, which has no credential`);
      if (forUser.size === 0) this.byUser.delete(name);
      return;
    }
    const d = record.data;
    invariant(d.iterations > 0 && d.salt.length > 0, `SCRAM credential of ${name}: empty salt or no iterations`);
    let forUser = this.byUser.get(name);
    if (forUser === undefined) {
      forUser = new Map();
      this.byUser.set(name, forUser);
    }
    forUser.set(mechanism, { user: name, mechanism, salt: d.salt, storedKey: d.storedKey, serverKey: d.serverKey, iterations: d.iterations });
  }

  toRecords(): MetadataRecord[] {
    return this.users().flatMap((user) =>
      this.ofUser(user).map((c): MetadataRecord => ({
        type: 'UserScramCredentialRecord',
        data: { name: c.user, mechanism: c.mechanism, salt: c.salt, storedKey: c.storedKey, serverKey: c.serverKey, iterations: c.iterations },
      })),
    );
  }

  /** Removal records for the credentials this store has and `to` lacks (snapshot jumps, image-records.ts). */
  removalsTowards(to: ScramCredentials): MetadataRecord[] {
    return this.users().flatMap((user) =>
      this.ofUser(user)
        .filter((c) => to.get(user, c.mechanism) === undefined)
        .map((c): MetadataRecord => ({ type: 'RemoveUserScramCredentialRecord', data: { name: user, mechanism: c.mechanism } })),
    );
  }
}
