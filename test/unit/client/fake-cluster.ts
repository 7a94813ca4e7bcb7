/**
 * A scripted multi-broker Kafka cluster for client failover tests: N fake
 * brokers on 127.0.0.1:0 (fake-broker.ts: real frames, our schemas) sharing
 * one model of each partition: its leader and leader epoch, a replicated log
 * of record batches (every replica holds the same log unless a test
 * truncates it), the leader-epoch cache (epoch -> start offset, as Kafka's
 * LeaderEpochFileCache) and the idempotent producer state with Kafka 3.x's
 * sequence rules. Tests move leadership, kill and restart brokers, truncate
 * logs, lose producer state and inject errors per produce attempt.
 *
 * Answers: Metadata (only live brokers; a partition whose leader is down
 * has leaderId -1 and LEADER_NOT_AVAILABLE), InitProducerId, Produce,
 * Fetch (CurrentLeaderEpoch fencing, NOT_LEADER_OR_FOLLOWER off the
 * replicas, PreferredReadReplica from the leader when a test sets one),
 * ListOffsets (earliest/latest), DeleteRecords and OffsetForLeaderEpoch;
 * node 1 is every group's coordinator: FindCoordinator and OffsetFetch
 * answer from `committed` (offset and leader epoch per partition).
 */
import { ErrorCode } from '../../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../../src/protocol/record-batch/builder.js';
import { decodeRecordBatchSync } from '../../../src/protocol/record-batch/reader.js';
import { incrementSequence } from '../../../src/client/producer-idempotence.js';
import { FAKE_API_VERSIONS, FakeBroker, withApiVersions, type FakeReply, type FakeRequest } from './fake-broker.js';

export const CLUSTER_API_VERSIONS = [
  ...FAKE_API_VERSIONS,
  { apiKey: 9, minVersion: 5, maxVersion: 7 },
  { apiKey: 10, minVersion: 0, maxVersion: 3 },
  { apiKey: 21, minVersion: 0, maxVersion: 2 },
  { apiKey: 22, minVersion: 0, maxVersion: 4 },
  { apiKey: 23, minVersion: 0, maxVersion: 4 },
];

/** One batch in a partition's log. */
export interface StoredBatch {
  baseOffset: bigint;
  epoch: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  values: string[];
  encoded: Buffer;
}

interface ProducerEntry {
  epoch: number;
  lastSeq: number;
  recent: { first: number; last: number; offset: bigint }[];
}

export interface PartitionModel {
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  log: StoredBatch[];
  /** Kafka's leader epoch cache: the first offset of each epoch that has records. */
  epochStarts: { epoch: number; startOffset: bigint }[];
  producers: Map<bigint, ProducerEntry>;
  /** The leader names this replica in Fetch answers (KIP-392); -1: none. */
  preferredReadReplica: number;
  /** DeleteRecords moved the log start here. */
  logStart: bigint;
}

/**
 * What a test may do to a produce attempt: answer a Kafka error code (after
 * writing the records when `afterAppend`, as NOT_ENOUGH_REPLICAS_AFTER_APPEND),
 * delay the answer, close the connection after handling it, or nothing (undefined).
 */
export type ProduceFault = { error?: number; afterAppend?: boolean; delayMs?: number } | 'close';
export type ProduceHook = (info: { node: number; partition: number; baseSequence: number; attempt: number }) => ProduceFault | undefined;

export interface FakeClusterOptions {
  brokers?: number;
  topic?: string;
  partitions?: number;
  /** Leader of each partition (default: node 1 + partition % brokers). */
  leaders?: number[];
  produceHook?: ProduceHook;
}

export class FakeCluster {
  readonly topic: string;
  readonly partitions: PartitionModel[];
  readonly nodes = new Map<number, FakeBroker>();
  /** Every request, with the node that got it. */
  readonly requests: { node: number; req: FakeRequest }[] = [];
  produceHook: ProduceHook | undefined;
  /** The group's committed offsets by partition (what OffsetFetch answers). */
  readonly committed = new Map<number, { offset: bigint; leaderEpoch: number }>();
  private readonly attempts = new Map<string, number>();
  private readonly idEpochs = new Map<bigint, number>();
  private nextProducerId = 1000n;

  private constructor(readonly brokerCount: number, options: FakeClusterOptions) {
    this.topic = options.topic ?? 't';
    this.produceHook = options.produceHook;
    const all = Array.from({ length: brokerCount }, (_, i) => i + 1);
    this.partitions = Array.from({ length: options.partitions ?? 1 }, (_, p) => ({
      leader: options.leaders?.[p] ?? 1 + (p % brokerCount),
      leaderEpoch: 0,
      replicas: all,
      log: [],
      epochStarts: [],
      producers: new Map(),
      preferredReadReplica: -1,
      logStart: 0n,
    }));
  }

  static async start(options: FakeClusterOptions = {}): Promise<FakeCluster> {
    const cluster = new FakeCluster(options.brokers ?? 3, options);
    for (let node = 1; node <= cluster.brokerCount; node++) await cluster.restart(node);
    return cluster;
  }

  get bootstrap(): string {
    return [...this.nodes.values()].map((b) => `127.0.0.1:${b.port}`).join(',');
  }

  /** Called as each OffsetForLeaderEpoch arrives, before it is answered (e.g. to hold an election meanwhile). */
  beforeOffsetForLeaderEpoch: ((node: number) => void) | null = null;

  /** Stops a broker: its connections close and new ones are refused; Metadata no longer lists it. */
  async kill(node: number): Promise<void> {
    const broker = this.nodes.get(node);
    this.nodes.delete(node);
    await broker?.stop();
  }

  /** Starts (again) a broker, on a new port. */
  async restart(node: number): Promise<void> {
    const broker = await FakeBroker.start(withApiVersions((req) => this.handle(node, req), CLUSTER_API_VERSIONS));
    this.nodes.set(node, broker);
  }

  /** Moves a partition's leadership, bumping its leader epoch (an election); `loseProducerState`: the new leader never saw the producer. */
  moveLeader(partition: number, to: number, options: { loseProducerState?: boolean } = {}): void {
    const p = this.partition(partition);
    p.leader = to;
    p.leaderEpoch++;
    p.preferredReadReplica = -1;
    if (options.loseProducerState === true) p.producers.clear();
  }

  /** Cuts a partition's log at `offset` (a batch boundary), as a leader elected without the tail would have it. */
  truncate(partition: number, offset: bigint): void {
    const p = this.partition(partition);
    p.log = p.log.filter((b) => b.baseOffset < offset);
    p.epochStarts = p.epochStarts.filter((e) => e.startOffset < offset);
  }

  /** Appends records as the leader would (no producer id), in the leader's current epoch. */
  append(partition: number, values: string[]): void {
    this.write(this.partition(partition), { producerId: -1n, producerEpoch: -1, baseSequence: -1 }, values);
  }

  /** Every value in a partition's log, in offset order. */
  values(partition: number): string[] {
    return this.partition(partition).log.flatMap((b) => b.values);
  }

  logEnd(partition: number): bigint {
    const last = this.partition(partition).log.at(-1);
    return last === undefined ? 0n : last.baseOffset + BigInt(last.values.length);
  }

  requestsOf(apiKey: number): { node: number; req: FakeRequest }[] {
    return this.requests.filter((r) => r.req.apiKey === apiKey);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((b) => b.stop()));
    this.nodes.clear();
  }

  partition(index: number): PartitionModel {
    const p = this.partitions[index];
    if (p === undefined) throw new Error(`fake cluster: no partition ${index}`);
    return p;
  }

  // ------------------------------------------------------------ requests

  private handle(node: number, req: FakeRequest): FakeReply {
    this.requests.push({ node, req });
    switch (req.apiKey) {
      case 3:
        return this.metadata();
      case 22:
        return this.initProducerId(req);
      case 0:
        return this.produce(node, req);
      case 1:
        return this.fetch(node, req);
      case 2:
        return this.listOffsets(node, req);
      case 23:
        this.beforeOffsetForLeaderEpoch?.(node);
        return this.offsetForLeaderEpoch(node, req);
      case 21:
        return this.deleteRecords(node, req);
      case 10:
        return { body: { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 1, host: '127.0.0.1', port: this.nodes.get(1)?.port ?? -1 } };
      case 9:
        return this.offsetFetch(req);
      default:
        return { none: true };
    }
  }

  private metadata(): FakeReply {
    const brokers = [...this.nodes].map(([nodeId, b]) => ({ nodeId, host: '127.0.0.1', port: b.port, rack: `rack-${nodeId}` }));
    const partitions = this.partitions.map((p, i) => {
      const up = this.nodes.has(p.leader);
      return {
        errorCode: up ? 0 : ErrorCode.LEADER_NOT_AVAILABLE,
        partitionIndex: i,
        leaderId: up ? p.leader : -1,
        leaderEpoch: p.leaderEpoch,
        replicaNodes: p.replicas,
        isrNodes: p.replicas.filter((r) => this.nodes.has(r)),
        offlineReplicas: p.replicas.filter((r) => !this.nodes.has(r)),
      };
    });
    const topics = [{ errorCode: 0, name: this.topic, isInternal: false, partitions }];
    return { body: { throttleTimeMs: 0, brokers, clusterId: 'fake-cluster', controllerId: 1, topics } };
  }

  private initProducerId(req: FakeRequest): FakeReply {
    const body = req.body as { producerId?: bigint; producerEpoch?: number };
    const id = body.producerId ?? -1n;
    if (id >= 0n) {
      if (this.idEpochs.get(id) !== body.producerEpoch) return { body: { throttleTimeMs: 0, errorCode: ErrorCode.PRODUCER_FENCED, producerId: -1n, producerEpoch: -1 } };
      const epoch = (body.producerEpoch ?? 0) + 1;
      this.idEpochs.set(id, epoch);
      return { body: { throttleTimeMs: 0, errorCode: 0, producerId: id, producerEpoch: epoch } };
    }
    const fresh = this.nextProducerId++;
    this.idEpochs.set(fresh, 0);
    return { body: { throttleTimeMs: 0, errorCode: 0, producerId: fresh, producerEpoch: 0 } };
  }

  private produce(node: number, req: FakeRequest): FakeReply {
    const topicData = req.body.topicData as { name: string; partitionData: { index: number; records: Buffer }[] }[];
    let close = false;
    let delayMs = 0;
    const responses = topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((pd) => {
        const answer = (errorCode: number, baseOffset = -1n) => ({ index: pd.index, errorCode, baseOffset, logAppendTimeMs: -1n, logStartOffset: 0n });
        const p = this.partitions[pd.index];
        if (p === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        if (p.leader !== node) return answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        const { header, records } = decodeRecordBatchSync(pd.records);
        const b = { producerId: header.producerId, producerEpoch: header.producerEpoch, baseSequence: header.baseSequence };
        const key = `${pd.index}/${b.producerId}/${b.producerEpoch}/${b.baseSequence}`;
        const attempt = this.attempts.get(key) ?? 0;
        this.attempts.set(key, attempt + 1);
        const fault = this.produceHook?.({ node, partition: pd.index, baseSequence: b.baseSequence, attempt });
        if (fault === 'close') close = true;
        else if (fault !== undefined) delayMs = Math.max(delayMs, fault.delayMs ?? 0);
        const injected = fault === 'close' || fault?.error === undefined ? 0 : fault.error;
        if (injected !== 0 && fault !== 'close' && fault?.afterAppend !== true) return answer(injected);
        const r = this.appendIdempotent(p, b, records.map((r) => String(r.value)));
        return answer(injected !== 0 && r.errorCode === 0 ? injected : r.errorCode, r.baseOffset);
      }),
    }));
    // 'close': the records were written (or refused) but the answer is lost with the connection.
    if (close) return { close: true };
    return { body: { responses, throttleTimeMs: 0 }, delayMs };
  }

  /** Kafka 3.x ProducerAppendInfo.checkSequence: a producer the leader has no state for may start at any sequence. */
  private appendIdempotent(p: PartitionModel, b: { producerId: bigint; producerEpoch: number; baseSequence: number }, values: string[]): { errorCode: number; baseOffset: bigint } {
    if (b.producerId >= 0n) {
      const entry = p.producers.get(b.producerId);
      const last = incrementSequence(b.baseSequence, values.length - 1);
      if (entry !== undefined) {
        if (b.producerEpoch < entry.epoch) return { errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, baseOffset: -1n };
        if (b.producerEpoch > entry.epoch) {
          if (b.baseSequence !== 0) return { errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, baseOffset: -1n };
        } else {
          const dup = entry.recent.find((r) => r.first === b.baseSequence && r.last === last);
          if (dup !== undefined) return { errorCode: 0, baseOffset: dup.offset };
          if (b.baseSequence !== incrementSequence(entry.lastSeq, 1)) return { errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, baseOffset: -1n };
        }
      }
      const offset = this.write(p, b, values);
      const next = entry !== undefined && entry.epoch === b.producerEpoch ? entry : { epoch: b.producerEpoch, lastSeq: -1, recent: [] };
      next.lastSeq = last;
      next.recent.push({ first: b.baseSequence, last, offset });
      if (next.recent.length > 5) next.recent.shift();
      p.producers.set(b.producerId, next);
      return { errorCode: 0, baseOffset: offset };
    }
    return { errorCode: 0, baseOffset: this.write(p, b, values) };
  }

  private write(p: PartitionModel, b: { producerId: bigint; producerEpoch: number; baseSequence: number }, values: string[]): bigint {
    const last = p.log.at(-1);
    const baseOffset = last === undefined ? 0n : last.baseOffset + BigInt(last.values.length);
    const encoded = buildRecordBatchSync({
      records: values.map((value) => ({ value })),
      baseOffset,
      partitionLeaderEpoch: p.leaderEpoch,
      producerId: b.producerId,
      producerEpoch: b.producerEpoch,
      baseSequence: b.baseSequence,
      timestampMs: 1,
    });
    if (p.epochStarts.at(-1)?.epoch !== p.leaderEpoch) p.epochStarts.push({ epoch: p.leaderEpoch, startOffset: baseOffset });
    p.log.push({ baseOffset, epoch: p.leaderEpoch, ...b, values, encoded });
    return baseOffset;
  }

  /** FENCED_LEADER_EPOCH for a stale caller, UNKNOWN_LEADER_EPOCH for one ahead (KIP-320); 0 when -1 (no check) or equal. */
  private epochCheck(p: PartitionModel, currentLeaderEpoch: number): number {
    if (currentLeaderEpoch < 0 || currentLeaderEpoch === p.leaderEpoch) return 0;
    return currentLeaderEpoch < p.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
  }

  private fetch(node: number, req: FakeRequest): FakeReply {
    const topics = req.body.topics as { topic: string; partitions: { partition: number; currentLeaderEpoch: number; fetchOffset: bigint }[] }[];
    const responses = topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((fp) => {
        const p = this.partitions[fp.partition];
        const answer = (errorCode: number, extra: { records?: Buffer; preferredReadReplica?: number } = {}) => ({
          partitionIndex: fp.partition,
          errorCode,
          highWatermark: p === undefined ? -1n : this.logEnd(fp.partition),
          lastStableOffset: p === undefined ? -1n : this.logEnd(fp.partition),
          logStartOffset: 0n,
          abortedTransactions: null,
          preferredReadReplica: extra.preferredReadReplica ?? -1,
          records: extra.records ?? Buffer.alloc(0),
        });
        if (p === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        // Followers serve consumers too (KIP-392); brokers that are not replicas do not.
        if (!p.replicas.includes(node) || (node !== p.leader && p.preferredReadReplica !== node)) return answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
        const fenced = this.epochCheck(p, fp.currentLeaderEpoch);
        if (fenced !== 0) return answer(fenced);
        if (fp.fetchOffset < 0n || fp.fetchOffset > this.logEnd(fp.partition)) return answer(ErrorCode.OFFSET_OUT_OF_RANGE);
        if (node === p.leader && p.preferredReadReplica >= 0 && req.apiVersion >= 11) return answer(0, { preferredReadReplica: p.preferredReadReplica });
        const batches = p.log.filter((b) => b.baseOffset + BigInt(b.values.length) > fp.fetchOffset).slice(0, 4);
        return answer(0, { records: Buffer.concat(batches.map((b) => b.encoded)) });
      }),
    }));
    const empty = responses.every((t) => t.partitions.every((p) => p.errorCode === 0 && p.records.length === 0 && p.preferredReadReplica < 0));
    const maxWaitMs = Number(req.body.maxWaitMs ?? 0);
    // Nothing new: wait a little, as a broker holds an empty fetch up to maxWaitMs (not longer here, to keep tests quick).
    return { body: { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses }, ...(empty ? { delayMs: Math.min(maxWaitMs, 50) } : {}) };
  }

  private listOffsets(node: number, req: FakeRequest): FakeReply {
    const topics = req.body.topics as { name: string; partitions: { partitionIndex: number; currentLeaderEpoch: number; timestamp: bigint }[] }[];
    return {
      body: {
        throttleTimeMs: 0,
        topics: topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((lp) => {
            const p = this.partitions[lp.partitionIndex];
            const answer = (errorCode: number, offset = -1n) => ({ partitionIndex: lp.partitionIndex, errorCode, timestamp: -1n, offset, leaderEpoch: p?.leaderEpoch ?? -1 });
            if (p === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
            if (p.leader !== node) return answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            const fenced = this.epochCheck(p, lp.currentLeaderEpoch ?? -1);
            if (fenced !== 0) return answer(fenced);
            return answer(0, lp.timestamp === -2n ? (p.log[0]?.baseOffset ?? 0n) : this.logEnd(lp.partitionIndex));
          }),
        })),
      },
    };
  }

  private offsetFetch(req: FakeRequest): FakeReply {
    const topics = (req.body.topics as { name: string; partitionIndexes: number[] }[] | null) ?? [];
    return {
      body: {
        throttleTimeMs: 0,
        errorCode: 0,
        topics: topics.map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => {
            const c = this.committed.get(partitionIndex);
            return { partitionIndex, committedOffset: c?.offset ?? -1n, committedLeaderEpoch: c?.leaderEpoch ?? -1, metadata: '', errorCode: 0 };
          }),
        })),
      },
    };
  }

  private deleteRecords(node: number, req: FakeRequest): FakeReply {
    const topics = req.body.topics as { name: string; partitions: { partitionIndex: number; offset: bigint }[] }[];
    return {
      body: {
        throttleTimeMs: 0,
        topics: topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((dp) => {
            const p = this.partitions[dp.partitionIndex];
            const answer = (errorCode: number, lowWatermark = -1n) => ({ partitionIndex: dp.partitionIndex, lowWatermark, errorCode });
            if (p === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
            if (p.leader !== node) return answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            const end = this.logEnd(dp.partitionIndex);
            const to = dp.offset === -1n ? end : dp.offset;
            if (to > end) return answer(ErrorCode.OFFSET_OUT_OF_RANGE);
            if (to > p.logStart) p.logStart = to;
            return answer(0, p.logStart);
          }),
        })),
      },
    };
  }

  private offsetForLeaderEpoch(node: number, req: FakeRequest): FakeReply {
    const topics = req.body.topics as { topic: string; partitions: { partition: number; currentLeaderEpoch: number; leaderEpoch: number }[] }[];
    return {
      body: {
        throttleTimeMs: 0,
        topics: topics.map((t) => ({
          topic: t.topic,
          partitions: t.partitions.map((ep) => {
            const p = this.partitions[ep.partition];
            const answer = (errorCode: number, leaderEpoch = -1, endOffset = -1n) => ({ errorCode, partition: ep.partition, leaderEpoch, endOffset });
            if (p === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
            if (p.leader !== node) return answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
            const fenced = this.epochCheck(p, ep.currentLeaderEpoch);
            if (fenced !== 0) return answer(fenced);
            // Kafka's LeaderEpochFileCache.endOffsetFor: the current epoch ends at the log end; an older one where the next begins.
            if (ep.leaderEpoch === p.leaderEpoch) return answer(0, p.leaderEpoch, this.logEnd(ep.partition));
            const floor = p.epochStarts.filter((e) => e.epoch <= ep.leaderEpoch).at(-1);
            if (floor === undefined) return answer(0);
            const next = p.epochStarts.find((e) => e.epoch > ep.leaderEpoch);
            return answer(0, floor.epoch, next?.startOffset ?? this.logEnd(ep.partition));
          }),
        })),
      },
    };
  }
}
