/**
 * The record format of __transaction_state, written from Kafka's public
 * message definitions TransactionLogKey and TransactionLogValue, so a log we
 * write reads like Kafka's and the other way round.
 *
 *   key   = int16 version 0 + TransactionLogKey {transactionalId}
 *   value = int16 version + TransactionLogValue (v0 classic; v1 flexible with
 *           the tagged fields of KIP-890 part 2: previous/next producer id,
 *           next producer epoch, client transaction version)
 *   null value = tombstone (the transactional id expired)
 *
 * We write v0 for clients of transaction version 1 and v1 for those of
 * transaction version 2 (as Kafka 4.x does), and read both.
 */
import { DecodeError } from '../../protocol/primitives/decode-error.js';
import { decode } from '../../protocol/codec.js';
import { array, data, field, struct, type Infer } from '../../protocol/schema.js';
import { encodeVersioned } from '../group/offsets-topic/records.js';
import type { TxnState } from './state.js';

export const TransactionLogKey = data({ name: 'TransactionLogKey', versions: '0', flexible: 'none' }, [
  field('transactionalId', 'string'),
]);

export const TransactionLogValue = data({ name: 'TransactionLogValue', versions: '0-1', flexible: '1+' }, [
  field('producerId', 'int64'),
  field('previousProducerId', 'int64', { versions: '1+', taggedVersions: '1+', tag: 0, default: -1n }),
  field('nextProducerId', 'int64', { versions: '1+', taggedVersions: '1+', tag: 1, default: -1n }),
  field('producerEpoch', 'int16'),
  field('nextProducerEpoch', 'int16', { versions: '1+', taggedVersions: '1+', tag: 3, default: -1 }),
  field('transactionTimeoutMs', 'int32'),
  field('transactionStatus', 'int8'),
  field('transactionPartitions', array(struct([field('topic', 'string'), field('partitionIds', array('int32'))])), { nullableVersions: '0+' }),
  field('transactionLastUpdateTimestampMs', 'int64'),
  field('transactionStartTimestampMs', 'int64'),
  field('clientTransactionVersion', 'int16', { versions: '1+', taggedVersions: '1+', tag: 2, default: 0 }),
]);
export type TransactionLogValue = Infer<typeof TransactionLogValue>;

/** Kafka's TransactionState ids (the int8 TransactionStatus). */
export const STATE_IDS: Readonly<Record<TxnState, number>> = {
  Empty: 0,
  Ongoing: 1,
  PrepareCommit: 2,
  PrepareAbort: 3,
  CompleteCommit: 4,
  CompleteAbort: 5,
  Dead: 6,
  PrepareEpochFence: 7,
};
const STATE_BY_ID = new Map<number, TxnState>(Object.entries(STATE_IDS).map(([s, id]) => [id, s as TxnState]));

/** What one record of __transaction_state says about a transactional id. */
export interface TxnLogEntry {
  readonly producerId: bigint;
  readonly previousProducerId: bigint;
  readonly nextProducerId: bigint;
  readonly producerEpoch: number;
  readonly nextProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly state: TxnState;
  /** "topic\0partition" keys are avoided here: topic and partitions, as on disk. */
  readonly partitions: readonly { readonly topic: string; readonly partition: number }[];
  readonly txnLastUpdateTimestampMs: number;
  readonly txnStartTimestampMs: number;
  /** 1 (classic) or 2 (KIP-890 part 2: epoch bump at every EndTxn). */
  readonly clientTransactionVersion: number;
}

export function encodeTxnKey(transactionalId: string): Buffer {
  return encodeVersioned(TransactionLogKey, 0, { transactionalId });
}

export function decodeTxnKey(buf: Buffer): string {
  if (buf.length < 2) throw new DecodeError('transaction log key has no version');
  const version = buf.readInt16BE(0);
  if (version !== 0) throw new DecodeError(`unknown transaction log key version ${version}`);
  return decode(TransactionLogKey, 0, buf, 2).transactionalId;
}

export function encodeTxnValue(e: TxnLogEntry): Buffer {
  const byTopic = new Map<string, number[]>();
  for (const tp of e.partitions) {
    const list = byTopic.get(tp.topic) ?? [];
    list.push(tp.partition);
    byTopic.set(tp.topic, list);
  }
  // Kafka writes a null partition list for Empty/Complete*/Dead; we always write the (possibly empty) list.
  const version = e.clientTransactionVersion >= 2 ? 1 : 0;
  return encodeVersioned(TransactionLogValue, version, {
    producerId: e.producerId,
    previousProducerId: e.previousProducerId,
    nextProducerId: e.nextProducerId,
    producerEpoch: e.producerEpoch,
    nextProducerEpoch: e.nextProducerEpoch,
    transactionTimeoutMs: e.txnTimeoutMs,
    transactionStatus: STATE_IDS[e.state],
    transactionPartitions: [...byTopic].map(([topic, partitionIds]) => ({ topic, partitionIds })),
    transactionLastUpdateTimestampMs: BigInt(e.txnLastUpdateTimestampMs),
    transactionStartTimestampMs: BigInt(e.txnStartTimestampMs),
    clientTransactionVersion: e.clientTransactionVersion,
  });
}

export function decodeTxnValue(buf: Buffer): TxnLogEntry {
  if (buf.length < 2) throw new DecodeError('transaction log value has no version');
  const version = buf.readInt16BE(0);
  if (version < 0 || version > 1) throw new DecodeError(`unknown transaction log value version ${version}`);
  const v = decode(TransactionLogValue, version, buf, 2);
  const state = STATE_BY_ID.get(v.transactionStatus);
  if (state === undefined) throw new DecodeError(`unknown transaction status ${v.transactionStatus}`);
  return {
    producerId: v.producerId,
    previousProducerId: v.previousProducerId,
    nextProducerId: v.nextProducerId,
    producerEpoch: v.producerEpoch,
    nextProducerEpoch: v.nextProducerEpoch,
    txnTimeoutMs: v.transactionTimeoutMs,
    state,
    partitions: (v.transactionPartitions ?? []).flatMap((t) => t.partitionIds.map((partition) => ({ topic: t.topic, partition }))),
    txnLastUpdateTimestampMs: Number(v.transactionLastUpdateTimestampMs),
    txnStartTimestampMs: Number(v.transactionStartTimestampMs),
    clientTransactionVersion: version >= 1 ? Math.max(v.clientTransactionVersion, 2) : 1,
  };
}
