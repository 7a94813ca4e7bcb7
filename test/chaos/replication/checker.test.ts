/**
 * The replication checker against planted histories: a clean one passes,
 * and each planted violation (lost, duplicated, reordered, wrong offset,
 * truncated after a consumer saw it) is caught, alone and named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availability, checkHistory, parseValue, recordValue, type AckedRecord, type History, type LoggedRecord, type ViolationKind } from './checker.js';
import { librdkafkaSequenceBug } from './scenario.js';

/** Two producers over two partitions, every record acknowledged at its offset. */
function cleanHistory(): { acked: AckedRecord[]; logs: Map<number, LoggedRecord[]>; seen: LoggedRecord[] } {
  const logs = new Map<number, LoggedRecord[]>([[0, []], [1, []]]);
  const acked: AckedRecord[] = [];
  let t = 0;
  for (let seq = 0; seq < 20; seq++) {
    for (const producer of ['rdk', 'ours']) {
      const partition = seq % 2;
      const log = logs.get(partition)!;
      const value = recordValue(producer, seq);
      const offset = BigInt(log.length);
      log.push({ partition, offset, value });
      acked.push({ producer, seq, partition, offset, value, atMs: (t += 10) });
    }
  }
  const seen = [...logs.values()].flatMap((l) => l.slice(0, 15));
  return { acked, logs, seen };
}

function kinds(history: History): ViolationKind[] {
  return [...new Set(checkHistory(history).violations.map((v) => v.kind))].sort();
}

test('recordValue / parseValue round trip, padded to a size', () => {
  const v = recordValue('p-1', 42, 100);
  assert.equal(v.length, 100);
  assert.deepEqual(parseValue(v), { producer: 'p-1', seq: 42 });
  assert.equal(parseValue('something else'), null);
  assert.equal(parseValue(null), null);
  assert.throws(() => recordValue('a|b', 1), RangeError);
});

test('a clean history has no violation; records never acknowledged may be present', () => {
  const h = cleanHistory();
  const log0 = h.logs.get(0)!;
  log0.push({ partition: 0, offset: BigInt(log0.length), value: recordValue('rdk', 100) }); // sent, never acknowledged
  const r = checkHistory(h);
  assert.deepEqual(r.violations, []);
  assert.equal(r.acked, 40);
  assert.equal(r.logged, 41);
  assert.equal(r.unacknowledgedPresent, 1);
});

test('lost: an acknowledged record missing from the log', () => {
  const h = cleanHistory();
  // Truncate partition 1 by its last record: acknowledged, gone.
  h.logs.set(1, h.logs.get(1)!.slice(0, -1));
  const r = checkHistory(h);
  assert.deepEqual(kinds(h), ['lost']);
  assert.match(r.violations[0]!.detail, /ours\|19\| acknowledged at 1@19 is not in the log/);
});

test('duplicated: a record twice in the log (a retry appended again)', () => {
  const h = cleanHistory();
  const log0 = h.logs.get(0)!;
  log0.push({ partition: 0, offset: BigInt(log0.length), value: log0[log0.length - 1]!.value });
  assert.deepEqual(kinds(h), ['duplicated']);
});

test('duplicated: also for a record never acknowledged', () => {
  const h = cleanHistory();
  const log1 = h.logs.get(1)!;
  const extra = recordValue('rdk', 101);
  log1.push({ partition: 1, offset: BigInt(log1.length), value: extra }, { partition: 1, offset: BigInt(log1.length + 1), value: extra });
  assert.deepEqual(kinds(h), ['duplicated']);
});

test('reordered: two records of one producer swapped (offsets as acknowledged are then wrong too)', () => {
  const h = cleanHistory();
  const log0 = h.logs.get(0)!;
  // rdk seq 2 (offset 2) and rdk seq 4 (offset 4) swap places.
  const a = log0[2]!;
  const b = log0[4]!;
  log0[2] = { ...a, value: b.value };
  log0[4] = { ...b, value: a.value };
  const found = kinds(h);
  assert.ok(found.includes('reordered'), found.join(','));
  const reordered = checkHistory(h).violations.filter((v) => v.kind === 'reordered');
  assert.equal(reordered.length, 1);
  assert.match(reordered[0]!.detail, /rdk seq 2 at offset 4 after seq 4 at offset 2/);
});

test('reordered alone: acknowledgements that agree with a log in the wrong order', () => {
  const h = cleanHistory();
  const log0 = h.logs.get(0)!;
  const a = log0[2]!;
  const b = log0[4]!;
  log0[2] = { ...a, value: b.value };
  log0[4] = { ...b, value: a.value };
  const acked = h.acked.map((x) => (x.value === a.value ? { ...x, offset: 4n } : x.value === b.value ? { ...x, offset: 2n } : x));
  const seen = [...h.logs.values()].flat(); // the consumers saw the log as it is
  assert.deepEqual(kinds({ ...h, acked, seen }), ['reordered']);
});

test('wrong offset: the acknowledgement named another offset than the log has', () => {
  const h = cleanHistory();
  const acked = h.acked.map((a, i) => (i === 7 ? { ...a, offset: a.offset + 1n } : a));
  const r = checkHistory({ ...h, acked });
  assert.deepEqual(r.violations.map((v) => v.kind), ['wrong-offset']);
});

test('truncated after seen: a consumer saw a record the final log replaced, or no longer has', () => {
  const h = cleanHistory();
  const log1 = h.logs.get(1)!;
  // Offset 5 of partition 1 held a record that was never acknowledged; a consumer saw it, then a failover
  // truncated it and another record took its place. The consumer also saw an offset past the final end.
  const replaced: LoggedRecord = { partition: 1, offset: 5n, value: recordValue('other', 1) };
  const saw: LoggedRecord = { partition: 1, offset: 5n, value: recordValue('other', 0) };
  const beyond: LoggedRecord = { partition: 1, offset: 25n, value: recordValue('other', 2) };
  const logs = new Map([[0, h.logs.get(0)!], [1, [...log1.slice(0, 5), replaced, ...log1.slice(6)]]]);
  const acked = h.acked.filter((a) => !(a.partition === 1 && a.offset === 5n));
  const seen = [...h.seen.filter((s) => !(s.partition === 1 && s.offset === 5n)), saw, beyond];
  const r = checkHistory({ acked, logs, seen });
  assert.deepEqual(r.violations.map((v) => v.kind), ['truncated-after-seen', 'truncated-after-seen']);
  const details = r.violations.map((v) => v.detail).join('\n');
  assert.match(details, /saw other\|0\| at 1@5; other\|1\| there now/);
  assert.match(details, /saw other\|2\| at 1@25; no record there now/);
});

test('a history with every kind planted reports every kind', () => {
  const h = cleanHistory();
  const log0 = h.logs.get(0)!.slice(0, -1); // lost
  log0.push({ partition: 0, offset: BigInt(log0.length), value: log0[0]!.value }); // duplicated (also: rdk seq 0 after later seqs: reordered)
  const acked = h.acked.map((a, i) => (i === 3 ? { ...a, offset: 99n } : a)); // wrong offset
  const seen = [...h.seen, { partition: 0, offset: 500n, value: 'ghost' }]; // truncated after seen
  assert.deepEqual(kinds({ acked, logs: new Map([[0, log0], [1, h.logs.get(1)!]]), seen }), ['duplicated', 'lost', 'reordered', 'truncated-after-seen', 'wrong-offset']);
});

test('availability: the longest gap between acknowledgements in each fault window', () => {
  const acks = [0, 100, 200, 1_700, 1_800, 5_000, 5_050];
  const r = availability(acks, [{ name: 'kill', atMs: 250 }, { name: 'pause', atMs: 4_000 }], 5_100);
  // kill window 250..4000: 250 -> 1700 (1450), 1700 -> 1800, 1800 -> 4000 (2200: no ack closes it)
  // pause window 4000..5100: 4000 -> 5000 (1000), 5000 -> 5050, 5050 -> 5100
  assert.deepEqual(r, [{ fault: 'kill', longestGapMs: 2_200, acks: 2 }, { fault: 'pause', longestGapMs: 1_000, acks: 2 }]);
});

test('only librdkafka\'s own sequence bug after a dropped connection excuses a fatal producer error', () => {
  // The text librdkafka 2.0.2 gave in a network-partition run (seed 678015978).
  const reason = 'Broker: Broker received an out of order sequence number: ProduceRequest for chaos-network-partition [0] with 170 message(s) failed due to sequence desynchronization with broker 2 (PID{Id:1000,Epoch:0}, base seq 59, idemp state change 6735ms ago, last partition error _TRANSPORT (actions Refresh,MsgPossiblyPersisted, base seq 58..58, base msgid 59, 36ms ago)';
  assert.equal(librdkafkaSequenceBug({ producer: 'rdk', fatal: 'OUT_OF_ORDER_SEQUENCE_NUMBER', fatalReason: reason }), true);
  // The same error after a broker's own answer (not a dropped connection) is the broker's fault.
  assert.equal(librdkafkaSequenceBug({ producer: 'rdk', fatal: 'OUT_OF_ORDER_SEQUENCE_NUMBER', fatalReason: reason.replace('_TRANSPORT (actions Refresh,MsgPossiblyPersisted', 'NOT_LEADER_FOR_PARTITION (actions Refresh,MsgNotPersisted') }), false);
  assert.equal(librdkafkaSequenceBug({ producer: 'rdk', fatal: 'UNKNOWN_PRODUCER_ID', fatalReason: reason }), false);
  assert.equal(librdkafkaSequenceBug({ producer: 'ours', fatal: 'OUT_OF_ORDER_SEQUENCE_NUMBER', fatalReason: reason }), false);
  assert.equal(librdkafkaSequenceBug({ producer: 'rdk', fatal: 'OUT_OF_ORDER_SEQUENCE_NUMBER', fatalReason: null }), false);
});
