/**
 * stampBatch's CreateTime window (message.timestamp.before/after.max.ms) is
 * computed in numbers when the timestamps allow it exactly: it must answer as
 * the BigInt rule does for every timestamp, at the window's edges, for
 * timestamps beyond 2^53 and for the "no timestamp" -1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stampBatch } from '../../../src/replication/append-validator.js';
import { BATCH_HEADER_BYTES, Offsets, readBatchHeader, type BatchHeader } from '../../../src/protocol/record-batch/header.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { TopicRules } from '../../../src/replication/topic-rules.js';
import { SeededRandom } from '../../../src/util/random.js';

const BASE_RULES: TopicRules = {
  maxMessageBytes: 1_048_588, segmentBytes: 1 << 30, messageTimestampType: 'CreateTime',
  timestampBeforeMaxMs: Number.MAX_SAFE_INTEGER, timestampAfterMaxMs: Number.MAX_SAFE_INTEGER, minInsyncReplicas: 1, compacted: false,
};

/** The rule as written with BigInts: the first timestamp outside the window, or null. */
function outsideByBigInt(header: BatchHeader, nowMs: number, rules: TopicRules): bigint | null {
  const now = BigInt(nowMs);
  for (const ts of [header.baseTimestamp, header.maxTimestamp]) {
    if (ts < 0n) continue;
    if (now - ts > BigInt(rules.timestampBeforeMaxMs) || ts - now > BigInt(rules.timestampAfterMaxMs)) return ts;
  }
  return null;
}

function headerWith(baseTimestamp: bigint, maxTimestamp: bigint): BatchHeader {
  return { ...readBatchHeader(Buffer.alloc(BATCH_HEADER_BYTES)), baseTimestamp, maxTimestamp };
}

test('the CreateTime window answers as the BigInt rule, edges and beyond 2^53 included', () => {
  const nowMs = Date.UTC(2026, 11, 3);
  const limits = [0, 1, 1000, 3_600_000, 2 ** 53 - 1];
  const safe = BigInt(Number.MAX_SAFE_INTEGER);
  const timestamps: bigint[] = [-1n, 0n, 1n, safe - 1n, safe, safe + 1n, safe + 2n, (1n << 63n) - 1n];
  for (const limit of limits) for (const d of [-1n, 0n, 1n]) timestamps.push(BigInt(nowMs) - BigInt(limit) + d, BigInt(nowMs) + BigInt(limit) + d);
  const r = new SeededRandom(17);
  for (let i = 0; i < 200; i++) timestamps.push(BigInt(nowMs) + BigInt(r.int(20_000_000)) - 10_000_000n);
  let refused = 0;
  for (const before of limits) {
    for (const after of limits) {
      const rules = { ...BASE_RULES, timestampBeforeMaxMs: before, timestampAfterMaxMs: after };
      for (const ts of timestamps) {
        for (const header of [headerWith(ts, -1n), headerWith(-1n, ts), headerWith(BigInt(nowMs), ts)]) {
          const batch = Buffer.alloc(BATCH_HEADER_BYTES);
          const expected = outsideByBigInt(header, nowMs, rules);
          const got = stampBatch(batch, header, rules, nowMs, 7);
          if (expected === null) {
            assert.equal(got, -1n, `ts ${ts} before ${before} after ${after}`);
            assert.equal(batch.readInt32BE(Offsets.partitionLeaderEpoch), 7);
          } else {
            refused++;
            assert.ok(typeof got === 'object' && got.errorCode === ErrorCode.INVALID_TIMESTAMP, `ts ${ts} before ${before} after ${after}`);
            assert.equal(got.message, `timestamp ${expected} is outside the topic's allowed window around ${nowMs}`);
          }
        }
      }
    }
  }
  assert.ok(refused > 0);
});

test('LogAppendTime stamps the clock time, whatever the batch says', () => {
  const batch = Buffer.alloc(BATCH_HEADER_BYTES + 10);
  batch.writeInt32BE(batch.length - 12, Offsets.batchLength);
  const got = stampBatch(batch, headerWith(0n, 0n), { ...BASE_RULES, messageTimestampType: 'LogAppendTime', timestampBeforeMaxMs: 0 }, 1234, 3);
  assert.equal(got, 1234n);
  assert.equal(batch.readBigInt64BE(Offsets.maxTimestamp), 1234n);
  assert.equal(batch.readInt32BE(Offsets.partitionLeaderEpoch), 3);
});
