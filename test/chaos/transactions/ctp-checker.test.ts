// The consume-transform-produce checker (ctp-checker.ts) on hand-made
// histories: a clean one passes, and each violation it exists for is found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTransactions, outputValue, type CheckInput, type OutputRecord, type TxnRecord } from './ctp-checker.js';

/** Input partition 0 with 4 records: transaction 0/1/1 (offsets 0-1) committed, 0/1/2 (2-3) aborted, 0/2/3 (2-3) committed. */
type History = Omit<CheckInput, 'transactions' | 'finalRead' | 'liveRead' | 'committed'> & { transactions: TxnRecord[]; finalRead: OutputRecord[]; liveRead: OutputRecord[]; committed: number[] };

function history(): History {
  const out = (p: number, o: bigint, input: number, label: string): OutputRecord => ({ partition: p, offset: o, value: outputValue(`0:${input}`, label) });
  const finalRead = [out(0, 0n, 0, '0/1/1'), out(1, 0n, 1, '0/1/1'), out(0, 3n, 2, '0/2/3'), out(1, 3n, 3, '0/2/3')];
  return {
    inputPartitions: 1,
    inputCount: 4,
    transactions: [
      { label: '0/1/1', partition: 0, inputOffsets: [0, 1], outcome: 'committed' },
      { label: '0/1/2', partition: 0, inputOffsets: [2, 3], outcome: 'aborted' },
      { label: '0/2/3', partition: 0, inputOffsets: [2, 3], outcome: 'committed' },
    ],
    finalRead,
    liveRead: finalRead.slice(0, 2),
    committed: [4],
    complete: true,
  };
}

test('a clean history has no violations', () => {
  const r = checkTransactions(history());
  assert.deepEqual(r.violations, []);
  assert.deepEqual(r.counts, { committed: 2, aborted: 1, unknown: 0 });
});

test('each kind of violation is found', () => {
  const cases: [string, (h: History) => void, RegExp][] = [
    ['aborted read', (h) => h.finalRead.push({ partition: 2, offset: 0n, value: outputValue('0:2', '0/1/2') }), /aborted read/],
    ['duplicate', (h) => h.finalRead.push({ partition: 2, offset: 0n, value: outputValue('0:0', '0/1/1') }), /duplicate: input 0:0/],
    ['lost write', (h) => h.finalRead.splice(3, 1), /lost committed write: transaction 0\/2\/3/],
    ['partial', (h) => {
      h.transactions[2]!.outcome = 'unknown';
      h.finalRead.splice(3, 1);
    }, /partial transaction/],
    ['offsets', (h) => (h.committed = [2]), /offsets: input partition 0 has committed offset 2/],
    ['unfinished', (h) => (h.committed = [2]), /finished at committed offset 2, expected 4/],
    ['live read twice', (h) => (h.liveRead = [...h.finalRead.slice(0, 1), ...h.finalRead.slice(0, 1)]), /read twice/],
    ['live read not in the final read', (h) => (h.liveRead = [{ partition: 0, offset: 9n, value: outputValue('0:3', '0/1/1') }]), /not in the final read/],
  ];
  for (const [name, spoil, expected] of cases) {
    const h = history();
    spoil(h);
    const r = checkTransactions(h);
    assert.ok(r.violations.some((v) => expected.test(v)), `${name}: ${JSON.stringify(r.violations)}`);
  }
});
