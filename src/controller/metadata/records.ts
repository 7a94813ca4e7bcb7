/**
 * Cluster metadata records: the entries of the `__cluster_metadata-0` log.
 * Modelled on KRaft's metadata records (KIP-500, KIP-631); the type numbers
 * are KRaft's, the fields a subset of KRaft's, written from the public KIP
 * descriptions. Our on-disk log is not meant to be read by Apache Kafka.
 *
 * Framing (as KRaft's MetadataRecordSerde): every metadata record is one
 * Kafka record with a null key whose value is
 *
 *   uvarint frameVersion (1) | uvarint recordType | uvarint recordVersion | fields
 *
 * and the fields are encoded by our generic codec from the schemas below
 * (all flexible, so new fields can be added as tagged fields or new versions).
 * Records are appended to the log in v2 record batches (see batch.ts).
 *
 * Decoding validates: an unknown frame version, record type or record version,
 * or malformed fields, throw DecodeError. Never an assertion: these bytes come
 * from the disk (or, with Raft, from the network).
 */
import { decode, encode } from '../../protocol/codec.js';
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import { Reader } from '../../protocol/primitives/reader.js';
import { Writer } from '../../protocol/primitives/writer.js';
import { array, data, field, struct, type Infer, type MessageSchema } from '../../protocol/schema.js';

/** The only frame version KRaft has defined. */
export const METADATA_FRAME_VERSION = 1;

/** ConfigRecord.resourceType values (Kafka's ConfigResource.Type ids). */
export const ConfigResourceType = { Topic: 2, Broker: 4 } as const;
export type ConfigResourceType = (typeof ConfigResourceType)[keyof typeof ConfigResourceType];

/** PartitionRecord.leaderRecoveryState (KIP-704). */
export const LeaderRecoveryState = { Recovered: 0, Recovering: 1 } as const;

/** Leader value meaning "no leader" (and in PartitionChangeRecord, -2 = "unchanged"). */
export const NO_LEADER = -1;
export const NO_LEADER_CHANGE = -2;

// 0 RegisterBrokerRecord. A broker (re)registering: its listeners, rack, fencing.
export const RegisterBrokerRecord = data({ name: 'RegisterBrokerRecord', versions: '0', flexible: '0+' }, [
  field('brokerId', 'int32'),
  field('incarnationId', 'uuid'),
  field('brokerEpoch', 'int64'),
  field(
    'endPoints',
    array(
      struct([
        field('name', 'string'),
        field('host', 'string'),
        field('port', 'uint16'),
        // Kafka's SecurityProtocol ids: 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL.
        field('securityProtocol', 'int16'),
      ]),
    ),
  ),
  field('features', array(struct([field('name', 'string'), field('minSupportedVersion', 'int16'), field('maxSupportedVersion', 'int16')]))),
  field('rack', 'nullableString'),
  field('fenced', 'bool', { default: true }),
  field('inControlledShutdown', 'bool', { default: false }),
]);

// 1 UnregisterBrokerRecord.
export const UnregisterBrokerRecord = data({ name: 'UnregisterBrokerRecord', versions: '0', flexible: '0+' }, [
  field('brokerId', 'int32'),
  field('brokerEpoch', 'int64'),
]);

// 2 TopicRecord.
export const TopicRecord = data({ name: 'TopicRecord', versions: '0', flexible: '0+' }, [
  field('name', 'string'),
  field('topicId', 'uuid'),
]);

// 3 PartitionRecord. A new partition (or a full replacement of one).
export const PartitionRecord = data({ name: 'PartitionRecord', versions: '0', flexible: '0+' }, [
  field('partitionId', 'int32'),
  field('topicId', 'uuid'),
  field('replicas', array('int32')),
  field('isr', array('int32')),
  field('removingReplicas', array('int32')),
  field('addingReplicas', array('int32')),
  field('leader', 'int32'),
  // Tagged as in KRaft: absent means RECOVERED.
  field('leaderRecoveryState', 'int8', { tag: 0, default: 0 }),
  field('leaderEpoch', 'int32'),
  field('partitionEpoch', 'int32'),
  // Eligible Leader Replicas (KIP-966), tagged as in KRaft's PartitionRecord:
  // replicas that left the ISR while it was below min.insync.replicas and so
  // still hold every committed record; and the last ELR members known before
  // the ISR and ELR both became empty.
  field('eligibleLeaderReplicas', array('int32'), { tag: 1, default: [] }),
  field('lastKnownElr', array('int32'), { tag: 2, default: [] }),
]);

// 4 ConfigRecord. value null deletes the key.
export const ConfigRecord = data({ name: 'ConfigRecord', versions: '0', flexible: '0+' }, [
  field('resourceType', 'int8'),
  field('resourceName', 'string'),
  field('name', 'string'),
  field('value', 'nullableString'),
]);

// 5 PartitionChangeRecord. Only the tagged fields that are present change.
export const PartitionChangeRecord = data({ name: 'PartitionChangeRecord', versions: '0', flexible: '0+' }, [
  field('partitionId', 'int32'),
  field('topicId', 'uuid'),
  field('isr', array('int32'), { tag: 0, nullableVersions: '0+', default: null }),
  field('leader', 'int32', { tag: 1, default: NO_LEADER_CHANGE }),
  field('replicas', array('int32'), { tag: 2, nullableVersions: '0+', default: null }),
  field('removingReplicas', array('int32'), { tag: 3, nullableVersions: '0+', default: null }),
  field('addingReplicas', array('int32'), { tag: 4, nullableVersions: '0+', default: null }),
  field('leaderRecoveryState', 'int8', { tag: 5, default: -1 }),
  // KIP-966, KRaft's tags: null (absent) = unchanged.
  field('eligibleLeaderReplicas', array('int32'), { tag: 6, nullableVersions: '0+', default: null }),
  field('lastKnownElr', array('int32'), { tag: 7, nullableVersions: '0+', default: null }),
]);

// 7 FenceBrokerRecord.
export const FenceBrokerRecord = data({ name: 'FenceBrokerRecord', versions: '0', flexible: '0+' }, [
  field('id', 'int32'),
  field('epoch', 'int64'),
]);

// 8 UnfenceBrokerRecord.
export const UnfenceBrokerRecord = data({ name: 'UnfenceBrokerRecord', versions: '0', flexible: '0+' }, [
  field('id', 'int32'),
  field('epoch', 'int64'),
]);

// 9 RemoveTopicRecord. Also removes the topic's partitions and configs.
export const RemoveTopicRecord = data({ name: 'RemoveTopicRecord', versions: '0', flexible: '0+' }, [field('topicId', 'uuid')]);

// 12 FeatureLevelRecord. featureLevel 0 removes the feature.
export const FeatureLevelRecord = data({ name: 'FeatureLevelRecord', versions: '0', flexible: '0+' }, [
  field('name', 'string'),
  field('featureLevel', 'int16'),
]);

// 17 BrokerRegistrationChangeRecord. fenced: 1 fence, -1 unfence, 0 unchanged;
// inControlledShutdown: 1 enters controlled shutdown, 0 unchanged (as KRaft).
export const BrokerRegistrationChangeRecord = data({ name: 'BrokerRegistrationChangeRecord', versions: '0', flexible: '0+' }, [
  field('brokerId', 'int32'),
  field('brokerEpoch', 'int64'),
  field('fenced', 'int8', { tag: 0, default: 0 }),
  field('inControlledShutdown', 'int8', { tag: 1, default: 0 }),
]);

// 15 ProducerIdsRecord. The controller handed broker `brokerId` a block of
// producer ids ending below nextProducerId; the next block starts there, so
// ids never repeat, across restarts too.
export const ProducerIdsRecord = data({ name: 'ProducerIdsRecord', versions: '0', flexible: '0+' }, [
  field('brokerId', 'int32'),
  field('brokerEpoch', 'int64'),
  field('nextProducerId', 'int64'),
]);

// 11 UserScramCredentialRecord (KIP-554). A user's SCRAM credential for one
// mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512): never the password, only what
// RFC 5802 lets a server verify a proof with.
export const UserScramCredentialRecord = data({ name: 'UserScramCredentialRecord', versions: '0', flexible: '0+' }, [
  field('name', 'string'),
  field('mechanism', 'int8'),
  field('salt', 'bytes'),
  field('storedKey', 'bytes'),
  field('serverKey', 'bytes'),
  field('iterations', 'int32'),
]);

// 22 RemoveUserScramCredentialRecord.
export const RemoveUserScramCredentialRecord = data({ name: 'RemoveUserScramCredentialRecord', versions: '0', flexible: '0+' }, [
  field('name', 'string'),
  field('mechanism', 'int8'),
]);

// 6 AccessControlEntryRecord. One ACL (KIP-500's ACLs in the metadata log),
// under the id the controller gave it; ids are Kafka's enum ids (src/protocol/acl-types.ts).
export const AccessControlEntryRecord = data({ name: 'AccessControlEntryRecord', versions: '0', flexible: '0+' }, [
  field('id', 'uuid'),
  field('resourceType', 'int8'),
  field('resourceName', 'string'),
  field('patternType', 'int8'),
  field('principal', 'string'),
  field('host', 'string'),
  field('operation', 'int8'),
  field('permissionType', 'int8'),
]);

// 16 RemoveAccessControlEntryRecord.
export const RemoveAccessControlEntryRecord = data({ name: 'RemoveAccessControlEntryRecord', versions: '0', flexible: '0+' }, [field('id', 'uuid')]);

// 14 ClientQuotaRecord (KIP-546). One quota key of one entity: the entity is
// a list of (type, name) with type user, client-id or ip and name null for
// the default entity; remove deletes the key.
export const ClientQuotaRecord = data({ name: 'ClientQuotaRecord', versions: '0', flexible: '0+' }, [
  field('entity', array(struct([field('entityType', 'string'), field('entityName', 'nullableString')]))),
  field('key', 'string'),
  field('value', 'float64'),
  field('remove', 'bool'),
]);

// 20 NoOpRecord. Written by a new leader to commit its epoch (Raft, later).
export const NoOpRecord = data({ name: 'NoOpRecord', versions: '0', flexible: '0+' }, []);

/** Every record type: KRaft's type number and our schema. */
export const MetadataRecordTypes = {
  RegisterBrokerRecord: { id: 0, schema: RegisterBrokerRecord },
  UnregisterBrokerRecord: { id: 1, schema: UnregisterBrokerRecord },
  TopicRecord: { id: 2, schema: TopicRecord },
  PartitionRecord: { id: 3, schema: PartitionRecord },
  ConfigRecord: { id: 4, schema: ConfigRecord },
  PartitionChangeRecord: { id: 5, schema: PartitionChangeRecord },
  FenceBrokerRecord: { id: 7, schema: FenceBrokerRecord },
  UnfenceBrokerRecord: { id: 8, schema: UnfenceBrokerRecord },
  RemoveTopicRecord: { id: 9, schema: RemoveTopicRecord },
  FeatureLevelRecord: { id: 12, schema: FeatureLevelRecord },
  BrokerRegistrationChangeRecord: { id: 17, schema: BrokerRegistrationChangeRecord },
  ProducerIdsRecord: { id: 15, schema: ProducerIdsRecord },
  NoOpRecord: { id: 20, schema: NoOpRecord },
  UserScramCredentialRecord: { id: 11, schema: UserScramCredentialRecord },
  RemoveUserScramCredentialRecord: { id: 22, schema: RemoveUserScramCredentialRecord },
  AccessControlEntryRecord: { id: 6, schema: AccessControlEntryRecord },
  RemoveAccessControlEntryRecord: { id: 16, schema: RemoveAccessControlEntryRecord },
  ClientQuotaRecord: { id: 14, schema: ClientQuotaRecord },
} as const;

type Types = typeof MetadataRecordTypes;
export type MetadataRecordTypeName = keyof Types;

/** A decoded metadata record: its type name and its fields (every field present). */
export type MetadataRecord = {
  [K in MetadataRecordTypeName]: { readonly type: K; readonly data: Infer<Types[K]['schema']> };
}[MetadataRecordTypeName];

/** The record of one type, e.g. `RecordOf<'TopicRecord'>`. */
export type RecordOf<K extends MetadataRecordTypeName> = Extract<MetadataRecord, { type: K }>;

const byId = new Map<number, { name: MetadataRecordTypeName; schema: MessageSchema }>(
  (Object.keys(MetadataRecordTypes) as MetadataRecordTypeName[]).map((name) => [
    MetadataRecordTypes[name].id,
    { name, schema: MetadataRecordTypes[name].schema as MessageSchema },
  ]),
);

/** Encodes a record's frame (the Kafka record value); `version` defaults to the latest. */
export function encodeMetadataRecord(record: MetadataRecord, version?: number): Buffer {
  const { id, schema } = MetadataRecordTypes[record.type];
  const v = version ?? schema.maxVersion;
  const w = new Writer(64);
  w.writeUVarint(METADATA_FRAME_VERSION);
  w.writeUVarint(id);
  w.writeUVarint(v);
  const header = w.toBuffer();
  // encode() is typed per schema; the union narrows at run time by `type`.
  const body = encode(schema as MessageSchema, v, record.data as never);
  return Buffer.concat([header, body]);
}

/** A decoded frame and the version it was written with. */
export interface DecodedMetadataRecord {
  readonly record: MetadataRecord;
  readonly version: number;
}

/** Decodes a record frame; unknown frame versions, types or versions are DecodeErrors. */
export function decodeMetadataRecord(value: Buffer): DecodedMetadataRecord {
  const r = new Reader(value);
  const frameVersion = r.readUVarint();
  if (frameVersion !== METADATA_FRAME_VERSION) {
    throw new DecodeError(`unsupported metadata record frame version ${frameVersion} (expected ${METADATA_FRAME_VERSION})`);
  }
  const typeId = r.readUVarint();
  const version = r.readUVarint();
  const type = byId.get(typeId);
  if (type === undefined) throw new DecodeError(`unknown metadata record type ${typeId}`);
  if (version < type.schema.minVersion || version > type.schema.maxVersion) {
    throw new DecodeError(
      `unsupported ${type.name} version ${version} (supported ${type.schema.minVersion}-${type.schema.maxVersion})`,
    );
  }
  const fields = decode(type.schema, version, value, r.position, value.length);
  return { record: { type: type.name, data: fields } as MetadataRecord, version };
}
