/**
 * Session windows against Kafka Streams' semantics (KStreamSessionWindowAggregate):
 * sessions grow within the inactivity gap, a record bridging two sessions merges
 * them (tombstones for the replaced sessions, then the merged result), late
 * records beyond gap + grace are dropped, suppression emits one final result;
 * the store keeps sessions for gap + grace (or Materialized.retentionMs) and
 * deletes older ones through its changelog.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyValue, Serdes, SessionWindows, StreamsBuilder, Suppressed, TopologyTestDriver, WindowedSerdes, type KTable, type SessionStore, type Windowed } from '../../../src/streams/index.js';

const S = Serdes.String();
const L = Serdes.Long();

type Input = [key: string, timestamp: number];

function run<V>(windows: SessionWindows, input: Input[], agg: (b: StreamsBuilder) => KTable<Windowed<string>, V>, valueSerde: typeof S | typeof L): { out: string[]; sessions: (key: string) => string[]; changelog: string[] } {
  const builder = new StreamsBuilder();
  agg(builder)
    .toStream()
    .map((wk, v) => KeyValue.pair(`${wk.key}@${wk.window.start}-${wk.window.end}`, v))
    .to('out', { keySerde: S, valueSerde: valueSerde as never });
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'app' });
  const tin = driver.createInputTopic('in', S, S);
  for (const [key, ts] of input) tin.pipeInput(key, `${key}${ts}`, ts);
  const out = driver.createOutputTopic('out', S, valueSerde as typeof S).readRecordsToList().map((r) => `${r.key}=${r.value}@${r.timestamp}`);
  const store = driver.getStateStore<SessionStore<string, V>>('sessions');
  const keys = new Set(input.map(([k]) => k));
  const snapshot = new Map([...keys].map((k) => [k, store.fetch(k).map((e) => `${e.key.window.start}-${e.key.window.end}=${String(e.value)}`)]));
  const changelog = driver
    .createOutputTopic('app-sessions-changelog', WindowedSerdes.sessionWindowedSerdeFrom(S), valueSerde as typeof S)
    .readKeyValuesToList()
    .map((r) => `${r.key?.key}@${r.key?.window.start}-${r.key?.window.end}=${r.value}`);
  driver.close();
  return { out, sessions: (k) => snapshot.get(k) ?? [], changelog };
}

// Sessions are kept 1 s here, so the store can be inspected after the run (the default, gap + grace, would drop the old ones: see the retention test).
const counting = (windows: SessionWindows) => (b: StreamsBuilder) => b.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(windows).count({ storeName: 'sessions', retentionMs: 1000 });

test('a record within the gap extends the session: tombstone of the old session, then the grown one', () => {
  const { out, sessions, changelog } = run(SessionWindows.ofInactivityGapWithNoGrace(5), [['a', 0], ['a', 3], ['b', 4], ['a', 20]], counting(SessionWindows.ofInactivityGapWithNoGrace(5)), L);
  assert.deepEqual(out, ['a@0-0=1@0', 'a@0-0=null@0', 'a@0-3=2@3', 'b@4-4=1@4', 'a@20-20=1@20']);
  assert.deepEqual(sessions('a'), ['0-3=2', '20-20=1']);
  assert.deepEqual(sessions('b'), ['4-4=1']);
  assert.deepEqual(changelog, ['a@0-0=1', 'a@0-0=null', 'a@0-3=2', 'b@4-4=1', 'a@20-20=1'], 'the changelog key is Kafka session key layout: key, end, start');
});

test('a record bridging two sessions merges them: both are removed, the merged session holds the sum', () => {
  const w = SessionWindows.ofInactivityGapAndGrace(5, 100);
  const { out, sessions } = run(w, [['a', 0], ['a', 10], ['a', 5]], counting(w), L);
  assert.deepEqual(out, ['a@0-0=1@0', 'a@10-10=1@10', 'a@0-0=null@0', 'a@10-10=null@10', 'a@0-10=3@10']);
  assert.deepEqual(sessions('a'), ['0-10=3']);
});

test('a gap of exactly the inactivity gap joins; one more ms starts a new session', () => {
  const w = SessionWindows.ofInactivityGapWithNoGrace(5);
  const { sessions } = run(w, [['a', 0], ['a', 5], ['a', 11]], counting(w), L);
  assert.deepEqual(sessions('a'), ['0-5=2', '11-11=1']);
});

test('a second record at the time of a one-record session updates it without a tombstone', () => {
  const w = SessionWindows.ofInactivityGapWithNoGrace(5);
  const { out } = run(w, [['a', 7], ['a', 7]], counting(w), L);
  assert.deepEqual(out, ['a@7-7=1@7', 'a@7-7=2@7']);
});

test('late records: dropped once end + gap + grace is behind stream time, accepted within grace', () => {
  const input: Input[] = [['a', 0], ['a', 20], ['a', 12]];
  const noGrace = SessionWindows.ofInactivityGapWithNoGrace(5);
  assert.deepEqual(run(noGrace, input, counting(noGrace), L).sessions('a'), ['0-0=1', '20-20=1'], 'close time 20 - 5 = 15 > 12');
  const grace = SessionWindows.ofInactivityGapAndGrace(5, 10);
  assert.deepEqual(run(grace, input, counting(grace), L).sessions('a'), ['0-0=1', '12-12=1', '20-20=1'], 'close time 20 - 5 - 10 = 5 <= 12');
  const bridging = run(noGrace, [['a', 0], ['a', 20], ['a', 17]], counting(noGrace), L);
  assert.deepEqual(bridging.sessions('a'), ['0-0=1', '17-20=2'], 'a late-looking record that joins a live session is kept (its merged end 20 is not closed)');
});

test('aggregate uses the merger to combine sessions; reduce merges with the reducer', () => {
  const w = SessionWindows.ofInactivityGapAndGrace(5, 100);
  const input: Input[] = [['a', 0], ['a', 10], ['a', 5]];
  const agg = run(w, input, (b) => b.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(w).aggregate(() => '', (_k, v, acc) => `${acc}[${v}]`, (_k, x, y) => `${x}+${y}`, { storeName: 'sessions', valueSerde: S }), S);
  assert.deepEqual(agg.sessions('a'), ['0-10=+[a0]+[a10][a5]'], 'initializer, merged with each old session in end order, then the new value');
  const red = run(w, input, (b) => b.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(w).reduce((x, y) => `${x},${y}`, { storeName: 'sessions' }), S);
  assert.deepEqual(red.sessions('a'), ['0-10=a0,a10,a5']);
});

test('suppress(untilWindowCloses) emits each final session once, never a session merged away', () => {
  const w = SessionWindows.ofInactivityGapWithNoGrace(5);
  const { out } = run(w, [['a', 0], ['a', 3], ['a', 20], ['a', 30]], (b) => counting(w)(b).suppress(Suppressed.untilWindowCloses()), L);
  assert.deepEqual(out, ['a@0-3=2@3', 'a@20-20=1@20']);
});

test('session store retention: gap + grace by default, older sessions deleted (and their deletion logged), a bounded store', () => {
  const w = SessionWindows.ofInactivityGapAndGrace(5, 5);
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(w).count({ storeName: 'sessions' });
  const driver = new TopologyTestDriver(builder.build(), { applicationId: 'app' });
  const tin = driver.createInputTopic('in', S, S);
  // 500 sessions per key (a record every 20 ms, gap 5): without retention the store would hold 1000.
  for (let t = 0; t < 10_000; t += 20) for (const k of ['a', 'b']) tin.pipeInput(k, 'v', t);
  const store = driver.getStateStore<SessionStore<string, bigint>>('sessions');
  const held = store.approximateNumEntries();
  assert.ok(held > 0 && held <= 2 * 3, `${held} sessions held`);
  assert.deepEqual(store.fetch('a').map((e) => `${e.key.window.start}-${e.key.window.end}=${e.value}`), ['9980-9980=1'], 'only sessions within gap + grace of the latest end are visible');
  assert.equal(store.fetchSession('a', 0, 0), null, 'the first session is gone');
  const changelog = driver.createOutputTopic('app-sessions-changelog', WindowedSerdes.sessionWindowedSerdeFrom(S), L).readKeyValuesToList();
  assert.ok(changelog.filter((r) => r.value === null).length >= 2 * 500 - 2 * 3, 'expired sessions are deleted from the changelog');
  driver.close();
  const refused = new StreamsBuilder();
  assert.throws(() => refused.stream('in', { keySerde: S, valueSerde: S }).groupByKey().windowedBy(w).count({ storeName: 's', retentionMs: 9 }), /retentionMs 9 is shorter/);
});

test('SessionWindows validates its arguments; the session serde round-trips', () => {
  assert.throws(() => SessionWindows.ofInactivityGapWithNoGrace(0), /inactivity gap/);
  assert.throws(() => SessionWindows.ofInactivityGapAndGrace(5, -1), /grace/);
  const serde = WindowedSerdes.sessionWindowedSerdeFrom(S);
  const bytes = serde.serialize('t', { key: 'ab', window: { start: 3, end: 9 } });
  assert.deepEqual(bytes, Buffer.concat([Buffer.from('ab'), Buffer.from([0, 0, 0, 0, 0, 0, 0, 9]), Buffer.from([0, 0, 0, 0, 0, 0, 0, 3])]));
  assert.deepEqual(serde.deserialize('t', bytes), { key: 'ab', window: { start: 3, end: 9 } });
});
