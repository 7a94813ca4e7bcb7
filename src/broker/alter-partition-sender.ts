/**
 * AlterPartitionSender: how a partition leader asks the active controller to
 * change an ISR (AlterPartition 56, KIP-497), modelled on Kafka's
 * DefaultAlterPartitionManager:
 *
 *  - `submit(item)` queues one partition's proposed state and resolves with
 *    the controller's answer for it (errorCode, and on success the committed
 *    leader, leader epoch, ISR and partition epoch);
 *  - at most one request is in flight; items submitted meanwhile (or in the
 *    same tick) wait and go together in the next request, every partition once;
 *  - a second submit for a partition that is already waiting or in flight
 *    answers OPERATION_NOT_ATTEMPTED at once (Kafka's rule: the leader must
 *    wait for the answer before proposing again);
 *  - no controller known, a request that fails on the way, a top-level or
 *    per-partition NOT_CONTROLLER: the items stay and are sent again after
 *    `retryBackoffMs` (to whoever is active then);
 *  - STALE_BROKER_EPOCH at the top (this broker re-registered meanwhile)
 *    resolves every item with it: the leader proposes again with fresh state.
 *
 * The channel is injected: `controllerAlterPartitionChannel` sends through
 * the ControllerChannel (the local QuorumController when this node is the
 * active one, else AlterPartition v3 to the active controller's controller
 * listener).
 */
import type { Logger } from 'pino';
import type { AlterPartitionReply, AlterPartitionRequest } from '../controller/alter-partition.js';
import { ErrorCode } from '../protocol/errors.js';
import { AlterPartitionRequest as AlterPartitionRequestSchema, AlterPartitionResponse } from '../protocol/messages/56-alter-partition.js';
import type { ControllerChannel } from './controller-channel.js';

/** A proposed ISR member; a plain id means "broker epoch not checked" (-1). */
export type IsrMember = number | { readonly brokerId: number; readonly brokerEpoch: bigint };

export interface AlterPartitionItem {
  readonly topicId: string;
  readonly topic: string;
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly newIsr: readonly IsrMember[];
  /** 0 RECOVERED, 1 RECOVERING (KIP-704). */
  readonly leaderRecoveryState: number;
}

export interface AlterPartitionResult {
  readonly errorCode: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly partitionEpoch: number;
  readonly leaderRecoveryState: number;
}

/** Where the requests go. `send` throws when no controller could be asked. */
export interface AlterPartitionChannel {
  send(request: AlterPartitionRequest): Promise<AlterPartitionReply>;
}

export interface AlterPartitionSenderOptions {
  readonly brokerId: number;
  /** This broker's current registration epoch. */
  readonly brokerEpoch: () => bigint;
  readonly channel: AlterPartitionChannel;
  readonly retryBackoffMs?: number | undefined;
  readonly logger?: Logger | undefined;
}

interface Pending {
  readonly item: AlterPartitionItem;
  readonly resolve: (r: AlterPartitionResult) => void;
  readonly reject: (err: Error) => void;
}

const RETRY_BACKOFF_MS_DEFAULT = 50;
const key = (topicId: string, partition: number): string => `${topicId}:${partition}`;

export class AlterPartitionSender {
  /** Submitted, not yet in a request (or back after a retriable failure). */
  private readonly waiting = new Map<string, Pending>();
  /** In the request on the wire. */
  private inFlight: Map<string, Pending> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Requests sent (for tests and metrics). */
  requestsSent = 0;

  constructor(private readonly opts: AlterPartitionSenderOptions) {}

  submit(item: AlterPartitionItem): Promise<AlterPartitionResult> {
    if (this.closed) return Promise.reject(new Error('the AlterPartition sender is closed'));
    const k = key(item.topicId, item.partition);
    if (this.waiting.has(k) || this.inFlight?.has(k) === true) return Promise.resolve(failed(ErrorCode.OPERATION_NOT_ATTEMPTED));
    return new Promise<AlterPartitionResult>((resolve, reject) => {
      this.waiting.set(k, { item, resolve, reject });
      this.scheduleSend();
    });
  }

  /** Items waiting or in flight. */
  get pendingCount(): number {
    return this.waiting.size + (this.inFlight?.size ?? 0);
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const err = new Error('the AlterPartition sender is closed');
    for (const p of [...this.waiting.values(), ...(this.inFlight?.values() ?? [])]) p.reject(err);
    this.waiting.clear();
    this.inFlight = null;
  }

  private sendScheduled = false;

  /** Sends at the end of the current tick, so proposals made together travel together. */
  private scheduleSend(): void {
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    queueMicrotask(() => {
      this.sendScheduled = false;
      this.maybeSend();
    });
  }

  private maybeSend(): void {
    if (this.closed || this.inFlight !== null || this.retryTimer !== null || this.waiting.size === 0) return;
    const batch = new Map(this.waiting);
    this.waiting.clear();
    this.inFlight = batch;
    this.requestsSent++;
    void this.opts.channel.send(this.request(batch)).then(
      (reply) => this.answered(batch, reply),
      (err: unknown) => {
        this.opts.logger?.debug({ err }, 'AlterPartition could not reach the active controller; retrying');
        this.retry(batch);
      },
    );
  }

  private request(batch: ReadonlyMap<string, Pending>): AlterPartitionRequest {
    const byTopic = new Map<string, { topicName: string; topicId: string; partitions: AlterPartitionRequest['topics'][number]['partitions'][number][] }>();
    for (const { item } of batch.values()) {
      let t = byTopic.get(item.topicId);
      if (t === undefined) {
        t = { topicName: item.topic, topicId: item.topicId, partitions: [] };
        byTopic.set(item.topicId, t);
      }
      t.partitions.push({
        partitionIndex: item.partition,
        leaderEpoch: item.leaderEpoch,
        partitionEpoch: item.partitionEpoch,
        leaderRecoveryState: item.leaderRecoveryState,
        newIsr: item.newIsr.map((m) => (typeof m === 'number' ? { brokerId: m, brokerEpoch: -1n } : m)),
      });
    }
    return { version: 3, brokerId: this.opts.brokerId, brokerEpoch: this.opts.brokerEpoch(), topics: [...byTopic.values()] };
  }

  private answered(batch: Map<string, Pending>, reply: AlterPartitionReply): void {
    if (this.inFlight !== batch) return; // closed meanwhile
    if (reply.errorCode === ErrorCode.NOT_CONTROLLER) return this.retry(batch);
    const retry = new Map<string, Pending>();
    const answers = new Map<string, AlterPartitionResult>();
    for (const t of reply.topics) {
      for (const p of t.partitions) {
        answers.set(key(t.topicId, p.partitionIndex), {
          errorCode: reply.errorCode !== ErrorCode.NONE ? reply.errorCode : p.errorCode,
          leaderId: p.leaderId,
          leaderEpoch: p.leaderEpoch,
          isr: p.isr,
          partitionEpoch: p.partitionEpoch,
          leaderRecoveryState: p.leaderRecoveryState,
        });
      }
    }
    for (const [k, pending] of batch) {
      const answer = reply.errorCode !== ErrorCode.NONE ? failed(reply.errorCode) : (answers.get(k) ?? failed(ErrorCode.UNKNOWN_SERVER_ERROR));
      if (answer.errorCode === ErrorCode.NOT_CONTROLLER) retry.set(k, pending);
      else pending.resolve(answer);
    }
    this.inFlight = null;
    if (retry.size > 0) this.retry(retry, true);
    else this.maybeSend();
  }

  /** Puts the items back (ahead of newer submits for other partitions) and sends again after the backoff. */
  private retry(batch: Map<string, Pending>, alreadyCleared = false): void {
    if (!alreadyCleared && this.inFlight !== batch) return;
    this.inFlight = null;
    for (const [k, p] of batch) if (!this.waiting.has(k)) this.waiting.set(k, p);
    if (this.closed || this.retryTimer !== null) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.maybeSend();
    }, this.opts.retryBackoffMs ?? RETRY_BACKOFF_MS_DEFAULT);
    this.retryTimer.unref();
  }
}

function failed(errorCode: number): AlterPartitionResult {
  return { errorCode, leaderId: -1, leaderEpoch: -1, isr: [], partitionEpoch: -1, leaderRecoveryState: 0 };
}

const API = { request: AlterPartitionRequestSchema, response: AlterPartitionResponse };
/** The version this broker sends: topic ids and ISR members with broker epochs (KIP-903). */
export const ALTER_PARTITION_VERSION = 3;

/**
 * The channel of a cluster node: the local controller (`local`, when this
 * node is the active controller), else AlterPartition v3 forwarded to the
 * active controller; throws while none is known (the sender retries).
 */
export function controllerAlterPartitionChannel(channel: ControllerChannel, local: () => ((req: AlterPartitionRequest) => Promise<AlterPartitionReply>) | null): AlterPartitionChannel {
  return {
    send: async (req) => {
      const here = local();
      if (channel.isLocal() && here !== null) return here(req);
      const res = await channel.forward(API, ALTER_PARTITION_VERSION, {
        brokerId: req.brokerId,
        brokerEpoch: req.brokerEpoch,
        topics: req.topics.map((t) => ({ topicName: t.topicName, topicId: t.topicId, partitions: t.partitions.map((p) => ({ ...p, newIsrWithEpochs: p.newIsr.map((m) => ({ ...m })), newIsr: [] })) })),
      });
      return {
        errorCode: res.errorCode,
        topics: res.topics.map((t) => ({ topicName: t.topicName, topicId: t.topicId, partitions: t.partitions.map((p) => ({ ...p, isr: [...p.isr] })) })),
      };
    },
  };
}
