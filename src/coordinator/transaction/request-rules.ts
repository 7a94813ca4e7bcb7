/**
 * Per-API rules the transaction handlers share: which error a version can
 * carry. PRODUCER_FENCED (KIP-588) is answered only to versions that know it:
 * InitProducerId v4+, AddPartitionsToTxn, AddOffsetsToTxn and EndTxn v2+;
 * older versions get INVALID_PRODUCER_EPOCH, as Kafka's handlers convert it.
 * TRANSACTION_ABORTABLE (KIP-890) likewise goes only to the versions added
 * for it (InitProducerId v5, AddPartitionsToTxn v5, AddOffsetsToTxn v4,
 * EndTxn v4, TxnOffsetCommit v4); older ones get INVALID_TXN_STATE, and
 * the producer aborts either way.
 */
import { ErrorCode } from '../../protocol/errors.js';

/** The version from which each API may answer PRODUCER_FENCED. */
export const PRODUCER_FENCED_SINCE = { initProducerId: 4, addPartitionsToTxn: 2, addOffsetsToTxn: 2, endTxn: 2, txnOffsetCommit: 0 } as const;

/** The version from which each API may answer TRANSACTION_ABORTABLE. */
export const TRANSACTION_ABORTABLE_SINCE = { initProducerId: 5, addPartitionsToTxn: 5, addOffsetsToTxn: 4, endTxn: 4, txnOffsetCommit: 4 } as const;

export type TxnApi = keyof typeof PRODUCER_FENCED_SINCE;

/** The code `api` answers at `version` for the coordinator's `code`. */
export function codeForVersion(api: TxnApi, version: number, code: number): number {
  if (code === ErrorCode.PRODUCER_FENCED && version < PRODUCER_FENCED_SINCE[api]) return ErrorCode.INVALID_PRODUCER_EPOCH;
  if (code === ErrorCode.TRANSACTION_ABORTABLE && version < TRANSACTION_ABORTABLE_SINCE[api]) return ErrorCode.INVALID_TXN_STATE;
  return code;
}
