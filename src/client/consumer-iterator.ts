/**
 * The record-level loops over `Consumer.batches()`: the `for await` record
 * iterator and `run()`, with their position rules. The position follows
 * each record; a batch iterated to its end leaves the position at the batch
 * end (past control records too); an interrupted one (break, throw, a
 * callback that threw) refetches from the next record to consume; close()
 * stops the loop at once. Nothing changes for a partition seeked meanwhile.
 */
import type { ConsumerRecord } from './consumer-decode.js';
import type { PartitionState } from './consumer-state.js';
import type { ConsumerBatch, RunOptions } from './consumer-types.js';
import { invalidArgument } from '../net/errors.js';

/** What the loops need from the Consumer. */
export interface BatchSource<K, V> {
  batches(): AsyncGenerator<ConsumerBatch<K, V>, void, undefined>;
  /** The partition of the batch handed out last. */
  handedOut(): PartitionState<K, V>;
  isClosed(): boolean;
  /** Fetch again (a partition was moved back). */
  pump(): void;
}

/** Settles a batch after its loop: complete (`batchEnd` given) or interrupted (null: refetch from the position). */
export function settleBatch<K, V>(source: BatchSource<K, V>, state: PartitionState<K, V>, epoch: number, batchEnd: bigint | null): void {
  if (state.epoch !== epoch || state.position === null) return;
  if (batchEnd !== null) state.position = batchEnd;
  else if (!source.isClosed() && state.assigned) {
    state.seekTo(state.position);
    source.pump();
  }
}

/**
 * Records one by one. A hand-written iterator rather than an async
 * generator: a record already fetched costs one resolved promise (about
 * twice as fast per record).
 */
export function recordIterator<K, V>(source: BatchSource<K, V>): AsyncIterableIterator<ConsumerRecord<K, V>> {
  const batches = source.batches();
  const done: IteratorReturnResult<undefined> = { value: undefined, done: true };
  let records: ConsumerRecord<K, V>[] = [];
  let index = 0;
  let state: PartitionState<K, V> | null = null;
  let epoch = 0;
  let batchEnd: bigint | null = null;
  let finished = false;
  const take = (): IteratorYieldResult<ConsumerRecord<K, V>> => {
    const record = records[index++] as ConsumerRecord<K, V>;
    const s = state as PartitionState<K, V>;
    if (s.epoch === epoch) s.position = record.offset + 1n;
    return { value: record, done: false };
  };
  /** Settles the batch in hand: complete (position at its end) or interrupted (refetch from the position). */
  const settle = (): void => {
    if (state === null) return;
    settleBatch(source, state, epoch, index >= records.length ? batchEnd : null);
    state = null;
  };
  const finish = async (): Promise<IteratorReturnResult<undefined>> => {
    if (!finished) {
      finished = true;
      settle();
      await batches.return(undefined);
    }
    return done;
  };
  const pull = async (): Promise<IteratorResult<ConsumerRecord<K, V>, undefined>> => {
    for (;;) {
      settle();
      const step = await batches.next();
      if (step.done === true || source.isClosed()) return finish();
      state = source.handedOut();
      epoch = state.epoch;
      batchEnd = state.position;
      records = step.value.records;
      index = 0;
      if (records.length > 0) return take();
    }
  };
  const iterator: AsyncIterableIterator<ConsumerRecord<K, V>> = {
    next: () => {
      if (finished || source.isClosed()) return finish();
      if (state !== null && index < records.length) return Promise.resolve(take());
      return pull();
    },
    return: () => finish(),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** eachBatch or eachRecord for everything consumed until close(). A callback that throws rejects (its record is not consumed). */
export async function runHandlers<K, V>(source: BatchSource<K, V>, handlers: RunOptions<K, V>): Promise<void> {
  const { eachBatch, eachRecord } = handlers;
  if (eachBatch === undefined && eachRecord === undefined) throw invalidArgument('run() needs eachBatch or eachRecord');
  for await (const batch of source.batches()) {
    if (eachBatch !== undefined) {
      const state = source.handedOut();
      const epoch = state.epoch;
      try {
        await eachBatch(batch);
      } catch (err) {
        // The batch was not consumed: back to its first record.
        if (state.epoch === epoch) state.position = (batch.records[0] as ConsumerRecord<K, V>).offset;
        settleBatch(source, state, epoch, null);
        throw err;
      }
      continue;
    }
    const state = source.handedOut();
    const epoch = state.epoch;
    const batchEnd = state.position;
    const records = batch.records;
    let complete = false;
    try {
      for (let i = 0; i < records.length; i++) {
        if (source.isClosed()) return;
        const record = records[i] as ConsumerRecord<K, V>;
        // Until its callback returns, a record is not consumed (a throw leaves the position on it).
        if (state.epoch === epoch) state.position = record.offset;
        const done = (eachRecord as NonNullable<typeof eachRecord>)(record);
        if (done !== undefined && typeof (done as Promise<void>).then === 'function') await done;
        if (state.epoch === epoch) state.position = record.offset + 1n;
      }
      complete = true;
    } finally {
      settleBatch(source, state, epoch, complete ? batchEnd : null);
    }
  }
}
