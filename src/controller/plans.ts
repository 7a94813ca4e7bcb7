/**
 * What the controller decides, as pure functions of the current image:
 * validate a request the way Kafka does, and produce the per-item results
 * and the records to append. No I/O, no state: the controller serializes
 * requests, so each plan sees the image with every earlier change applied.
 */
import { ZERO_UUID } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Random } from '../util/random.js';
import { assignReplicas } from './assignment.js';
import { METADATA_BATCH_RECORDS_MAX } from './metadata/batch.js';
import type { MetadataImage } from './metadata/image.js';
import { ConfigResourceType, type MetadataRecord } from './metadata/records.js';
import { METADATA_TOPIC } from './metadata-log.js';
import { hasCollisionChars, topicNameProblem, unifyCollisionChars } from './topic-names.js';
import type { CreateTopicResult, NewPartitions, NewTopic, TopicConfigValidator, TopicErrorResult } from './types.js';
import { randomUuid } from './uuid.js';

/** Most partitions one request may create for one topic (one append holds at most METADATA_BATCH_RECORDS_MAX records). */
export const PARTITIONS_PER_REQUEST_MAX = METADATA_BATCH_RECORDS_MAX - 1;
/** replicationFactor is an int16 on the wire. */
export const REPLICATION_FACTOR_MAX = 0x7fff;

/**
 * Why a broker refuses a replication factor above 1 (its PlanContext
 * replicationFactorMax): partitions have no followers yet, so a second
 * replica would be advertised but never fetch, acks=all would time out and
 * the high watermark would never move.
 */
export function unsupportedReplicationFactorMessage(rf: number): string {
  return `Replication factor ${rf} is not supported: partition replication is not implemented yet, so the replication factor must be 1.`;
}

export interface PlanContext {
  readonly image: MetadataImage;
  readonly random: Random;
  readonly numPartitionsDefault: number;
  readonly replicationFactorDefault: number;
  /** The largest replication factor (and manual replica list) accepted; REPLICATION_FACTOR_MAX when not limited. */
  readonly replicationFactorMax: number;
  readonly validateTopicConfigs: TopicConfigValidator;
}

export interface Plan<R> {
  readonly results: R[];
  readonly records: MetadataRecord[];
}

interface Failure {
  readonly errorCode: ErrorCode;
  readonly errorMessage: string;
}

function fail(errorCode: ErrorCode, errorMessage: string): Failure {
  return { errorCode, errorMessage };
}

function isFailure(x: unknown): x is Failure {
  return typeof x === 'object' && x !== null && 'errorCode' in x && 'errorMessage' in x;
}

function countNames(names: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return counts;
}

// ---------------------------------------------------------------- assignment

/** Checks one manually given replica list; returns the problem or null. */
export function replicaListProblem(image: MetadataImage, replicas: readonly number[], partitionId: number, expectedReplicas: number | null): string | null {
  if (replicas.length === 0) return `The manual partition assignment for partition ${partitionId} is an empty replica list.`;
  if (expectedReplicas !== null && replicas.length !== expectedReplicas) {
    return `The manual partition assignment includes a partition with ${replicas.length} replica(s), but this is not consistent with previous partitions, which have ${expectedReplicas} replica(s).`;
  }
  const seen = new Set<number>();
  for (const id of replicas) {
    if (seen.has(id)) return `The manual partition assignment for partition ${partitionId} includes broker ${id} more than once.`;
    seen.add(id);
    if (image.broker(id) === undefined) return `The manual partition assignment includes broker ${id}, but no such broker is registered.`;
  }
  return null;
}

/** Replica lists -> PartitionRecords: ISR = the unfenced replicas, leader = the first of them not in controlled shutdown, epochs 0. */
function partitionRecords(image: MetadataImage, topicId: string, firstPartitionId: number, assignment: readonly (readonly number[])[]): MetadataRecord[] | Failure {
  const out: MetadataRecord[] = [];
  for (let i = 0; i < assignment.length; i++) {
    const replicas = [...(assignment[i] as readonly number[])];
    const partitionId = firstPartitionId + i;
    const isr = replicas.filter((id) => image.broker(id)?.fenced === false);
    // A broker in controlled shutdown may hold a replica but does not take new leaderships.
    const leader = isr.find((id) => image.broker(id)?.inControlledShutdown === false);
    if (leader === undefined) {
      return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `All brokers specified in the partition assignment for partition ${partitionId} are fenced.`);
    }
    out.push({
      type: 'PartitionRecord',
      data: { partitionId, topicId, replicas, isr, removingReplicas: [], addingReplicas: [], leader, leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0, eligibleLeaderReplicas: [], lastKnownElr: [] },
    });
  }
  return out;
}

/** A replication factor (or replica list length) above what this cluster supports, or null. */
function unsupportedReplicationFactor(ctx: PlanContext, rf: number): Failure | null {
  return rf > ctx.replicationFactorMax ? fail(ErrorCode.INVALID_REPLICATION_FACTOR, unsupportedReplicationFactorMessage(rf)) : null;
}

function replicationFactorProblem(ctx: PlanContext, rf: number, liveBrokers: number): Failure | null {
  if (rf <= 0 || rf > REPLICATION_FACTOR_MAX) {
    return fail(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
  }
  const unsupported = unsupportedReplicationFactor(ctx, rf);
  if (unsupported !== null) return unsupported;
  if (rf > liveBrokers) {
    return fail(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${rf} time(s): The target replication factor of ${rf} cannot be reached because only ${liveBrokers} broker(s) are registered.`,
    );
  }
  return null;
}

function autoAssignment(ctx: PlanContext, partitions: number, rf: number, firstPartitionId: number): number[][] {
  const brokers = ctx.image.usableBrokers();
  return assignReplicas(brokers, {
    partitionCount: partitions,
    replicationFactor: rf,
    firstPartitionId,
    startIndex: ctx.random.int(brokers.length),
    replicaShift: ctx.random.int(brokers.length),
  });
}

// --------------------------------------------------------------- CreateTopics

interface TopicPlan {
  readonly assignment: readonly (readonly number[])[];
  readonly configs: Map<string, string>;
}

function manualAssignment(ctx: PlanContext, t: NewTopic): (readonly number[])[] | Failure {
  if (t.numPartitions !== -1) return fail(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
  if (t.replicationFactor !== -1) return fail(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but replicationFactor was not set to -1.');
  if (t.assignments.length > PARTITIONS_PER_REQUEST_MAX) {
    return fail(ErrorCode.INVALID_PARTITIONS, `${t.assignments.length} partitions exceed the maximum of ${PARTITIONS_PER_REQUEST_MAX} per request.`);
  }
  const byIndex = new Map(t.assignments.map((a) => [a.partitionIndex, a.brokerIds]));
  const out: (readonly number[])[] = [];
  for (let i = 0; i < t.assignments.length; i++) {
    const replicas = byIndex.get(i);
    if (replicas === undefined || byIndex.size !== t.assignments.length) {
      return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Partitions should be a consecutive 0-based integer sequence.');
    }
    const problem = replicaListProblem(ctx.image, replicas, i, out[0]?.length ?? null);
    if (problem !== null) return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, problem);
    const unsupported = unsupportedReplicationFactor(ctx, replicas.length);
    if (unsupported !== null) return unsupported;
    out.push(replicas);
  }
  return out;
}

function automaticAssignment(ctx: PlanContext, t: NewTopic): number[][] | Failure {
  const partitions = t.numPartitions === -1 ? ctx.numPartitionsDefault : t.numPartitions;
  if (partitions <= 0) return fail(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
  if (partitions > PARTITIONS_PER_REQUEST_MAX) {
    return fail(ErrorCode.INVALID_PARTITIONS, `Number of partitions ${partitions} exceeds the maximum of ${PARTITIONS_PER_REQUEST_MAX} per request.`);
  }
  const rf = t.replicationFactor === -1 ? ctx.replicationFactorDefault : t.replicationFactor;
  const problem = replicationFactorProblem(ctx, rf, ctx.image.usableBrokers().length);
  if (problem !== null) return problem;
  return autoAssignment(ctx, partitions, rf, 0);
}

function topicConfigs(ctx: PlanContext, configs: NewTopic['configs']): Map<string, string> | Failure {
  const out = new Map<string, string>();
  for (const c of configs) {
    if (c.value === null) return fail(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${c.name}`);
    if (out.has(c.name)) return fail(ErrorCode.INVALID_CONFIG, `Duplicate config key: ${c.name}`);
    out.set(c.name, c.value);
  }
  const errors = ctx.validateTopicConfigs(out);
  if (errors.length > 0) return fail(ErrorCode.INVALID_CONFIG, errors.map((e) => e.message).join('; '));
  return out;
}

function collisionIndex(image: MetadataImage): Map<string, string> {
  const index = new Map<string, string>();
  for (const t of image.topics()) if (hasCollisionChars(t.name)) index.set(unifyCollisionChars(t.name), t.name);
  return index;
}

function planTopic(ctx: PlanContext, t: NewTopic, collisions: Map<string, string>): TopicPlan | Failure {
  const nameProblem = topicNameProblem(t.name);
  if (nameProblem !== null) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, nameProblem);
  if (t.name === METADATA_TOPIC) return fail(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${METADATA_TOPIC} is prohibited.`);
  if (ctx.image.topicByName(t.name) !== undefined) return fail(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${t.name}' already exists.`);
  const other = hasCollisionChars(t.name) ? collisions.get(unifyCollisionChars(t.name)) : undefined;
  if (other !== undefined) {
    return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${t.name}' collides with existing topic: ${other} (names may not differ only in '.' and '_').`);
  }
  // As Kafka, a null config value is refused before partitions are looked at.
  const nullConfig = t.configs.find((c) => c.value === null);
  if (nullConfig !== undefined) return fail(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${nullConfig.name}`);
  const assignment = t.assignments.length > 0 ? manualAssignment(ctx, t) : automaticAssignment(ctx, t);
  if (isFailure(assignment)) return assignment;
  const configs = topicConfigs(ctx, t.configs);
  if (isFailure(configs)) return configs;
  return { assignment, configs };
}

function newTopicId(ctx: PlanContext, taken: Set<string>): string {
  for (;;) {
    const id = randomUuid(ctx.random);
    if (!taken.has(id) && ctx.image.topicById(id) === undefined) {
      taken.add(id);
      return id;
    }
  }
}

function createFailure(name: string, f: Failure): CreateTopicResult {
  return { name, topicId: ZERO_UUID, errorCode: f.errorCode, errorMessage: f.errorMessage, numPartitions: -1, replicationFactor: -1, configs: [] };
}

/** CreateTopics: one result per distinct name, in request order; records for every topic that passed. */
export function planCreateTopics(ctx: PlanContext, topics: readonly NewTopic[], validateOnly: boolean): Plan<CreateTopicResult> {
  const counts = countNames(topics.map((t) => t.name));
  const collisions = collisionIndex(ctx.image);
  const done = new Set<string>();
  const ids = new Set<string>();
  const results: CreateTopicResult[] = [];
  const records: MetadataRecord[] = [];
  for (const t of topics) {
    if (done.has(t.name)) continue;
    done.add(t.name);
    if ((counts.get(t.name) ?? 0) > 1) {
      results.push(createFailure(t.name, fail(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.')));
      continue;
    }
    const plan = planTopic(ctx, t, collisions);
    if (isFailure(plan)) {
      results.push(createFailure(t.name, plan));
      continue;
    }
    const topicId = validateOnly ? ZERO_UUID : newTopicId(ctx, ids);
    const parts = partitionRecords(ctx.image, topicId, 0, plan.assignment);
    if (isFailure(parts)) {
      results.push(createFailure(t.name, parts));
      continue;
    }
    if (records.length + 1 + parts.length + plan.configs.size > METADATA_BATCH_RECORDS_MAX) {
      results.push(createFailure(t.name, fail(ErrorCode.POLICY_VIOLATION, `Excessively large number of partitions per request (at most ${METADATA_BATCH_RECORDS_MAX} metadata records).`)));
      continue;
    }
    records.push({ type: 'TopicRecord', data: { name: t.name, topicId } }, ...parts);
    for (const [name, value] of plan.configs) {
      records.push({ type: 'ConfigRecord', data: { resourceType: ConfigResourceType.Topic, resourceName: t.name, name, value } });
    }
    // Later topics of the same request must not collide with this one either.
    if (hasCollisionChars(t.name)) collisions.set(unifyCollisionChars(t.name), t.name);
    results.push({
      name: t.name,
      topicId,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      numPartitions: plan.assignment.length,
      replicationFactor: plan.assignment[0]?.length ?? -1,
      configs: [...plan.configs].map(([name, value]) => ({ name, value, readOnly: false, configSource: 1, isSensitive: false })),
    });
  }
  return { results, records: validateOnly ? [] : records };
}

// ---------------------------------------------------------- CreatePartitions

function planAddPartitions(ctx: PlanContext, spec: NewPartitions): MetadataRecord[] | Failure {
  const topic = ctx.image.topicByName(spec.name);
  if (topic === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${spec.name}' does not exist.`);
  const current = topic.partitions.size;
  if (spec.count < current) {
    return fail(ErrorCode.INVALID_PARTITIONS, `The topic ${spec.name} currently has ${current} partition(s); ${spec.count} would not be an increase.`);
  }
  if (spec.count === current) return fail(ErrorCode.INVALID_PARTITIONS, `Topic already has ${current} partition(s).`);
  const added = spec.count - current;
  if (added > PARTITIONS_PER_REQUEST_MAX) {
    return fail(ErrorCode.INVALID_PARTITIONS, `Adding ${added} partitions exceeds the maximum of ${PARTITIONS_PER_REQUEST_MAX} per request.`);
  }
  const rf = topic.partitions.get(0)?.replicas.length ?? 1;
  let assignment: (readonly number[])[];
  if (spec.assignments !== null) {
    if (spec.assignments.length !== added) {
      return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Attempted to add ${added} additional partition(s), but only ${spec.assignments.length} assignment(s) were specified.`);
    }
    for (let i = 0; i < added; i++) {
      const replicas = spec.assignments[i] as readonly number[];
      const problem = replicaListProblem(ctx.image, replicas, current + i, rf);
      if (problem !== null) return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, problem);
      const unsupported = unsupportedReplicationFactor(ctx, replicas.length);
      if (unsupported !== null) return unsupported;
    }
    assignment = [...spec.assignments];
  } else {
    const problem = replicationFactorProblem(ctx, rf, ctx.image.usableBrokers().length);
    if (problem !== null) return problem;
    assignment = autoAssignment(ctx, added, rf, current);
  }
  return partitionRecords(ctx.image, topic.topicId, current, assignment);
}

/** CreatePartitions: one result per distinct topic name. */
export function planCreatePartitions(ctx: PlanContext, specs: readonly NewPartitions[], validateOnly: boolean): Plan<TopicErrorResult> {
  const counts = countNames(specs.map((s) => s.name));
  const done = new Set<string>();
  const results: TopicErrorResult[] = [];
  const records: MetadataRecord[] = [];
  for (const spec of specs) {
    if (done.has(spec.name)) continue;
    done.add(spec.name);
    const planned = (counts.get(spec.name) ?? 0) > 1 ? fail(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.') : planAddPartitions(ctx, spec);
    if (isFailure(planned)) {
      results.push({ name: spec.name, errorCode: planned.errorCode, errorMessage: planned.errorMessage });
    } else if (records.length + planned.length > METADATA_BATCH_RECORDS_MAX) {
      results.push({ name: spec.name, errorCode: ErrorCode.POLICY_VIOLATION, errorMessage: 'Excessively large number of partitions per request.' });
    } else {
      records.push(...planned);
      results.push({ name: spec.name, errorCode: ErrorCode.NONE, errorMessage: null });
    }
  }
  return { results, records: validateOnly ? [] : records };
}
