/**
 * `tributary bench produce --transactional-id ID`: the records go in
 * transactions of --records-per-transaction records each (beginTransaction,
 * sendBatch per chunk, commitTransaction), one transaction at a time as an
 * exactly-once application runs them. Reported beside the plain summary:
 * transactions/s and the commit latency (commitTransaction right after the
 * last send: flushing the last batches, their acknowledgements, EndTxn and
 * its PrepareCommit write), p50/p99.
 */
import type { Producer } from '../../client/producer.js';
import type { ProducerRecord } from '../../client/producer-types.js';
import type { ProducerBenchSettings } from './bench.js';
import { LatencyHistogram, sleepUntil, type Counters } from './bench-stats.js';

type Value = Buffer;

export interface TransactionalLoopResult {
  elapsedMs: number;
  firstError: Error | null;
  transactions: number;
  commitLatency: LatencyHistogram;
}

export async function transactionalLoop(
  producer: Producer<Value | null, Value>,
  settings: ProducerBenchSettings,
  counters: Counters,
  latency: LatencyHistogram,
  makeChunk: (n: number) => ProducerRecord<Value | null, Value>[],
  /** Records per sendBatch() (bench-produce.ts chunkSize). */
  chunk: number,
): Promise<TransactionalLoopResult> {
  const commitLatency = new LatencyHistogram();
  let firstError: Error | null = null;
  let sent = 0;
  let transactions = 0;
  const start = performance.now();
  while (sent < settings.records && firstError === null) {
    const size = Math.min(settings.recordsPerTransaction, settings.records - sent);
    producer.beginTransaction();
    try {
      const acks: Promise<void>[] = [];
      for (let done = 0; done < size; ) {
        const n = Math.min(chunk, size - done);
        if (settings.throughput > 0) await sleepUntil(start + ((sent + done) * 1000) / settings.throughput);
        const records = makeChunk(n);
        const sentAt = performance.now();
        counters.inFlight += n;
        acks.push(
          producer.sendBatch(records).then(() => {
            let bytes = 0;
            for (const r of records) bytes += r.value.length + (r.key?.length ?? 0);
            counters.records += n;
            counters.bytes += bytes;
            counters.inFlight -= n;
            latency.recordMs(performance.now() - sentAt, n);
          }),
        );
        done += n;
      }
      // As an application does: commit right after the last send. commitTransaction() flushes (the
      // last batches go without waiting for linger.ms), so the acks have all come when it returns.
      const commitStart = performance.now();
      await producer.commitTransaction();
      commitLatency.recordMs(performance.now() - commitStart, 1);
      await Promise.all(acks);
      transactions++;
    } catch (err) {
      firstError = err instanceof Error ? err : new Error(String(err));
      counters.errors += size;
      await producer.abortTransaction().catch(() => undefined);
    }
    sent += size;
  }
  return { elapsedMs: performance.now() - start, firstError, transactions, commitLatency };
}
