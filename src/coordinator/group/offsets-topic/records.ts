/**
 * The record formats of __consumer_offsets, written from Kafka's public
 * group-coordinator message definitions (OffsetCommitKey, OffsetCommitValue,
 * GroupMetadataKey, GroupMetadataValue) so that a log written by us reads
 * like one written by Kafka and the other way round.
 *
 * Every key and every value is `int16 version` followed by the body of that
 * version. The key's version says what the record is:
 *
 *   key v0, v1  OffsetCommitKey   {group, topic, partition int32}   (we write v1)
 *   key v2      GroupMetadataKey  {group}                          (we write v2)
 *   key v3+     KIP-848 and share-group records (newer Kafka); not ours, skipped
 *
 * A record with a null value is a tombstone for its key. Versions of the
 * values are in the schemas below. We write the newest non-flexible versions
 * (OffsetCommitValue v3, or v1 when an explicit expire timestamp must be kept,
 * as Kafka does; GroupMetadataValue v3) and read every version 0-4.
 */
import { DecodeError } from '../../../protocol/primitives/decode-error.js';
import { decode, encode } from '../../../protocol/codec.js';
import { array, data, field, struct, type Infer, type Input, type MessageSchema } from '../../../protocol/schema.js';
import type { CommittedOffset, GroupSnapshot, MemberSnapshot } from '../types.js';

// ------------------------------------------------------------------ schemas

/** Key v0 and v1 (identical bodies; Kafka writes v1). */
export const OffsetCommitKey = data({ name: 'OffsetCommitKey', versions: '0-1', flexible: 'none' }, [
  field('group', 'string'),
  field('topic', 'string'),
  field('partition', 'int32'),
]);
export type OffsetCommitKey = Infer<typeof OffsetCommitKey>;

/** Key v2. */
export const GroupMetadataKey = data({ name: 'GroupMetadataKey', versions: '2', flexible: 'none' }, [
  field('group', 'string'),
]);
export type GroupMetadataKey = Infer<typeof GroupMetadataKey>;

/**
 * v0: offset, metadata, commitTimestamp. v1: + expireTimestamp (only in v1).
 * v2: expireTimestamp dropped. v3: + leaderEpoch after offset. v4: flexible.
 */
export const OffsetCommitValue = data({ name: 'OffsetCommitValue', versions: '0-4', flexible: '4+' }, [
  field('offset', 'int64'),
  field('leaderEpoch', 'int32', { versions: '3+', default: -1 }),
  field('metadata', 'string'),
  field('commitTimestamp', 'int64'),
  field('expireTimestamp', 'int64', { versions: '1', default: -1n }),
]);
export type OffsetCommitValue = Infer<typeof OffsetCommitValue>;

/**
 * Member order: memberId, groupInstanceId (v3+), clientId, clientHost,
 * rebalanceTimeout (v1+), sessionTimeout, subscription, assignment.
 */
const MemberMetadata = struct([
  field('memberId', 'string'),
  field('groupInstanceId', 'nullableString', { versions: '3+', default: null }),
  field('clientId', 'string'),
  field('clientHost', 'string'),
  field('rebalanceTimeout', 'int32', { versions: '1+' }),
  field('sessionTimeout', 'int32'),
  field('subscription', 'bytes'),
  field('assignment', 'bytes'),
]);

/**
 * v0: protocolType, generation, protocol?, leader?, members.
 * v1: + member rebalanceTimeout. v2: + currentStateTimestamp after leader.
 * v3: + member groupInstanceId. v4: flexible.
 */
export const GroupMetadataValue = data({ name: 'GroupMetadataValue', versions: '0-4', flexible: '4+' }, [
  field('protocolType', 'string'),
  field('generation', 'int32'),
  field('protocol', 'nullableString'),
  field('leader', 'nullableString'),
  field('currentStateTimestamp', 'int64', { versions: '2+', default: -1n }),
  field('members', array(MemberMetadata)),
]);
export type GroupMetadataValue = Infer<typeof GroupMetadataValue>;

/** The key versions of this topic. */
export const KeyVersion = { OffsetCommitV0: 0, OffsetCommit: 1, GroupMetadata: 2 } as const;
/** What we write. */
export const OFFSET_COMMIT_VALUE_VERSION = 3;
export const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRE = 1;
export const GROUP_METADATA_VALUE_VERSION = 3;
/** Highest value version we read (both values). */
export const VALUE_VERSION_MAX = 4;

// ---------------------------------------------------------------- framing

/** `int16 version` + the schema's body in that version. */
export function encodeVersioned<S extends MessageSchema>(schema: S, version: number, value: Input<S>): Buffer {
  const body = encode(schema, version, value);
  const out = Buffer.allocUnsafe(2 + body.length);
  out.writeInt16BE(version, 0);
  body.copy(out, 2);
  return out;
}

function readVersion(buf: Buffer, what: string): number {
  if (buf.length < 2) throw new DecodeError(`${what} of ${buf.length} bytes has no version`);
  return buf.readInt16BE(0);
}

function decodeBody<S extends MessageSchema>(schema: S, version: number, buf: Buffer, what: string): Infer<S> {
  if (version < schema.minVersion || version > schema.maxVersion) {
    throw new DecodeError(`unknown ${what} version ${version}`);
  }
  return decode(schema, version, buf, 2);
}

// -------------------------------------------------------------------- keys

export type OffsetsRecordKey =
  | { readonly kind: 'offset'; readonly groupId: string; readonly topic: string; readonly partition: number }
  | { readonly kind: 'group'; readonly groupId: string }
  /** A record type of newer Kafka (KIP-848 consumer groups, share groups...): skipped. */
  | { readonly kind: 'unknown'; readonly version: number };

export function encodeOffsetCommitKey(groupId: string, topic: string, partition: number): Buffer {
  return encodeVersioned(OffsetCommitKey, KeyVersion.OffsetCommit, { group: groupId, topic, partition });
}

export function encodeGroupMetadataKey(groupId: string): Buffer {
  return encodeVersioned(GroupMetadataKey, KeyVersion.GroupMetadata, { group: groupId });
}

/** Decodes a record key; malformed bytes throw DecodeError. */
export function decodeRecordKey(buf: Buffer): OffsetsRecordKey {
  const version = readVersion(buf, 'record key');
  if (version === KeyVersion.OffsetCommitV0 || version === KeyVersion.OffsetCommit) {
    const k = decode(OffsetCommitKey, version, buf, 2);
    return { kind: 'offset', groupId: k.group, topic: k.topic, partition: k.partition };
  }
  if (version === KeyVersion.GroupMetadata) {
    return { kind: 'group', groupId: decode(GroupMetadataKey, version, buf, 2).group };
  }
  if (version < 0) throw new DecodeError(`negative record key version ${version}`);
  return { kind: 'unknown', version };
}

// ------------------------------------------------------------------ values

/**
 * v3 normally; v1 when the commit carries an explicit expire timestamp
 * (OffsetCommit v2-v4 retention), which v1 alone can hold. v1 has no
 * leader epoch, so that one is lost then (Kafka does the same).
 */
export function encodeOffsetCommitValue(c: CommittedOffset): Buffer {
  const value = {
    offset: c.offset,
    leaderEpoch: c.leaderEpoch,
    metadata: c.metadata,
    commitTimestamp: BigInt(c.commitTimestampMs),
    expireTimestamp: c.expireTimestampMs === null ? -1n : BigInt(c.expireTimestampMs),
  };
  const version = c.expireTimestampMs === null ? OFFSET_COMMIT_VALUE_VERSION : OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRE;
  return encodeVersioned(OffsetCommitValue, version, value);
}

export function decodeOffsetCommitValue(buf: Buffer, topic: string, partition: number): CommittedOffset {
  const version = readVersion(buf, 'offset commit value');
  const v = decodeBody(OffsetCommitValue, version, buf, 'offset commit value');
  return {
    topic,
    partition,
    offset: v.offset,
    leaderEpoch: v.leaderEpoch,
    metadata: v.metadata,
    commitTimestampMs: Number(v.commitTimestamp),
    expireTimestampMs: version === 1 && v.expireTimestamp !== -1n ? Number(v.expireTimestamp) : null,
  };
}

export function encodeGroupMetadataValue(s: GroupSnapshot, version = GROUP_METADATA_VALUE_VERSION): Buffer {
  return encodeVersioned(GroupMetadataValue, version, {
    protocolType: s.protocolType,
    generation: s.generationId,
    protocol: s.protocolName,
    leader: s.leaderId,
    currentStateTimestamp: BigInt(s.currentStateTimestampMs),
    members: s.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: m.subscription,
      assignment: m.assignment,
    })),
  });
}

/**
 * `currentStateTimestampMs` is -1 when the value predates v2 (unknown).
 * A v0 member has no rebalance timeout: Kafka then used the session timeout.
 * Member buffers are copied out of the (possibly shared) input.
 */
export function decodeGroupMetadataValue(buf: Buffer, groupId: string): GroupSnapshot {
  const version = readVersion(buf, 'group metadata value');
  const v = decodeBody(GroupMetadataValue, version, buf, 'group metadata value');
  const members: MemberSnapshot[] = v.members.map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    rebalanceTimeoutMs: version === 0 ? m.sessionTimeout : m.rebalanceTimeout,
    sessionTimeoutMs: m.sessionTimeout,
    subscription: Buffer.from(m.subscription),
    assignment: Buffer.from(m.assignment),
  }));
  return {
    groupId,
    protocolType: v.protocolType,
    generationId: v.generation,
    protocolName: v.protocol,
    leaderId: v.leader,
    currentStateTimestampMs: Number(v.currentStateTimestamp),
    members,
  };
}
