/**
 * The ACL part of the MetadataImage: every ACL by the id the controller gave
 * it, set by AccessControlEntryRecord and removed by
 * RemoveAccessControlEntryRecord (Kafka's AclControlManager image). Every
 * node applies the same log, so every broker authorizes from the same ACLs
 * (src/security/authorizer reads this store).
 *
 * `generation` counts applied changes: the authorizer rebuilds its index and
 * drops the per-connection decisions it cached when it moves.
 */
import { invariant } from '../../util/assert.js';
import type { AclBinding } from '../../protocol/acl-types.js';
import type { MetadataRecord, RecordOf } from './records.js';

export interface StoredAcl extends AclBinding {
  readonly id: string;
}

/** One key per distinct ACL: the same binding twice is one ACL (Kafka's StandardAcl equality). */
export function aclKey(a: AclBinding): string {
  return `${a.resourceType}\u0000${a.patternType}\u0000${a.resourceName}\u0000${a.principal}\u0000${a.host}\u0000${a.operation}\u0000${a.permissionType}`;
}

export class AclStore {
  private readonly byId = new Map<string, StoredAcl>();
  private readonly byKey = new Map<string, StoredAcl>();
  private changes = 0;

  /** Moves on every applied change. */
  get generation(): number {
    return this.changes;
  }

  get size(): number {
    return this.byId.size;
  }

  all(): IterableIterator<StoredAcl> {
    return this.byId.values();
  }

  /** The ACL with the same binding, if one exists (CreateAcls of an existing ACL is a no-op). */
  find(binding: AclBinding): StoredAcl | undefined {
    return this.byKey.get(aclKey(binding));
  }

  apply(record: RecordOf<'AccessControlEntryRecord'> | RecordOf<'RemoveAccessControlEntryRecord'>): void {
    this.changes++;
    if (record.type === 'RemoveAccessControlEntryRecord') {
      const acl = this.byId.get(record.data.id);
      invariant(acl !== undefined, `RemoveAccessControlEntryRecord for unknown ACL id ${record.data.id}`);
      this.byId.delete(acl.id);
      this.byKey.delete(aclKey(acl));
      return;
    }
    const acl: StoredAcl = { ...record.data };
    invariant(!this.byId.has(acl.id), `ACL id ${acl.id} already exists`);
    const key = aclKey(acl);
    invariant(!this.byKey.has(key), `ACL ${acl.id} duplicates ACL ${this.byKey.get(key)?.id}`);
    this.byId.set(acl.id, acl);
    this.byKey.set(key, acl);
  }

  toRecords(): MetadataRecord[] {
    return [...this.byId.values()].map((a): MetadataRecord => ({ type: 'AccessControlEntryRecord', data: { ...a } }));
  }

  /** Removal records for the ACLs this store has and `to` lacks (snapshot jumps, image-records.ts). */
  removalsTowards(to: AclStore): MetadataRecord[] {
    return [...this.byId.keys()].filter((id) => !to.byId.has(id)).map((id): MetadataRecord => ({ type: 'RemoveAccessControlEntryRecord', data: { id } }));
  }
}
