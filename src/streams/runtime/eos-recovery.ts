/**
 * The exactly_once_v2 commit and what follows when it fails (Kafka's
 * handling of TaskMigratedException and of an aborted transaction, for the
 * one transaction of a stream thread):
 *
 * - the transaction is aborted; a fenced producer (a newer epoch took over,
 *   e.g. the coordinator aborted a transaction that outlived its timeout) is
 *   replaced by a new one with the same transactional id instead;
 * - every active task is closed dirty: its local state may hold changes of
 *   the aborted transaction, so it is wiped;
 * - the tasks still assigned are created again, restored `read_committed`
 *   from their changelogs, and the consumer is rewound to the committed
 *   offsets, so the aborted input is processed again into a new transaction;
 * - when the group no longer knows this member's generation (the rebalance
 *   that fenced it) or the producer was fenced, the consumer rejoins.
 *
 * `generation` counts recoveries: a batch the consumer handed out before a
 * rewind is dropped by the thread.
 */
import { KafkaProtocolError, ProducerFencedError, TransactionAbortableError, type Consumer, type TopicPartition } from '../../client/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { StreamsLogger } from './config.js';
import type { StreamsProducer } from './streams-producer.js';
import type { TaskManager } from './task-manager.js';

/** Group errors of TxnOffsetCommit that mean this member is out of date: rejoin (Kafka's TaskMigratedException). */
const GROUP_MIGRATED = new Set<number>([ErrorCode.ILLEGAL_GENERATION, ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.FENCED_INSTANCE_ID, ErrorCode.REBALANCE_IN_PROGRESS]);

function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e !== undefined && e !== null && out.length < 8; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

export function isFenced(err: unknown): boolean {
  return causes(err).some((e) => e instanceof ProducerFencedError);
}

/** A send of the transaction failed in a way that only an abort resolves. */
export function isAbortable(err: unknown): boolean {
  return causes(err).some((e) => e instanceof TransactionAbortableError);
}

export function isMigrated(err: unknown): boolean {
  return causes(err).some((e) => e instanceof KafkaProtocolError && GROUP_MIGRATED.has(e.kafkaErrorCode));
}

export class EosRecovery {
  /** Bumped after each recovery rewound the consumer. */
  generation = 0;

  constructor(
    private readonly producer: StreamsProducer,
    private readonly tasks: TaskManager,
    private readonly log: StreamsLogger,
  ) {}

  /**
   * Waits for the output (`flush`), then commits the thread's transaction
   * with `offsets`. A failure of the transaction itself (fencing, an
   * abortable error, the group generation) recovers and resolves false; a
   * record the production exception handler refused (FAIL) is rethrown: the
   * thread dies and its transaction is aborted when it closes.
   */
  async commit(consumer: Consumer<unknown, unknown>, offsets: readonly { topic: string; partition: number; offset: bigint }[], flush: () => Promise<void>): Promise<boolean> {
    try {
      await flush();
    } catch (err) {
      if (!isFenced(err) && !isAbortable(err)) throw err;
      await this.recover(consumer, err, []);
      return false;
    }
    try {
      await this.producer.commitTransaction(offsets, consumer.groupMetadata());
      return true;
    } catch (err) {
      await this.recover(consumer, err, []);
      return false;
    }
  }

  /** Aborts, closes every task dirty, creates the kept ones again and rewinds the input (`lost` partitions are not kept). */
  async recover(consumer: Consumer<unknown, unknown>, cause: unknown, lost: readonly TopicPartition[]): Promise<void> {
    const fenced = isFenced(cause);
    this.log('warn', `transaction aborted (${(cause as Error)?.message ?? String(cause)}): tasks closed dirty, restored from their changelogs, input rewound to the committed offsets${fenced ? '; the producer was fenced and is replaced' : ''}`);
    if (fenced) await this.producer.reset();
    else await this.producer.abortTransaction().catch(() => this.producer.reset());
    this.tasks.closeAllDirty();
    const lostKeys = new Set(lost.map((tp) => `${tp.topic}:${tp.partition}`));
    const keep = consumer.assignment().filter((tp) => !lostKeys.has(`${tp.topic}:${tp.partition}`));
    await this.tasks.createFor(keep);
    const committed = keep.length > 0 ? await consumer.committed(keep) : [];
    for (const tp of keep) {
      const c = committed.find((o) => o.topic === tp.topic && o.partition === tp.partition);
      consumer.seek(tp, c !== undefined && c.error === null && c.offset >= 0n ? c.offset : 'earliest');
    }
    this.generation++;
    if (fenced || isMigrated(cause)) consumer.enforceRebalance('exactly-once: this member was fenced');
  }
}
