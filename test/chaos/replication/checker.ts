/**
 * The Jepsen-style checker of the replication chaos suite: given every
 * record a producer had acknowledged, everything a consumer group handed
 * out while the faults ran, and every partition read back from offset 0
 * afterwards, it lists every violation of the guarantees of acks=all with
 * idempotence (issue 12, "Tests"):
 *
 * - lost: an acknowledged record is not in the final log;
 * - duplicated: a record (acknowledged or not) is in the log more than once;
 * - wrong-offset: an acknowledged record sits at another offset than the
 *   one its acknowledgement gave;
 * - reordered: one producer's records in one partition are not in the
 *   order it sent them (its sequence numbers go back);
 * - truncated-after-seen: a consumer was handed a record that the final log
 *   no longer has at that offset (it was truncated away, or replaced).
 *
 * Records a producer sent without an acknowledgement (failed, timed out,
 * in flight at the end) may be in the log or not: indeterminate, as in
 * Jepsen. Every value is unique: `recordValue(producer, seq)`, which the
 * checker parses back to tell producers and their order apart.
 */

/** What one acknowledgement said. */
export interface AckedRecord {
  readonly producer: string;
  /** The producer's own counter, increasing in send order (over all its partitions). */
  readonly seq: number;
  readonly partition: number;
  readonly offset: bigint;
  readonly value: string;
  /** When the acknowledgement arrived (ms, any monotonic clock shared with the faults). */
  readonly atMs: number;
}

/** One record of a partition: in the final log, or as a consumer was handed it. */
export interface LoggedRecord {
  readonly partition: number;
  readonly offset: bigint;
  readonly value: string | null;
}

export type ViolationKind = 'lost' | 'duplicated' | 'wrong-offset' | 'reordered' | 'truncated-after-seen';

export interface Violation {
  readonly kind: ViolationKind;
  readonly partition: number;
  readonly detail: string;
}

export interface History {
  readonly acked: readonly AckedRecord[];
  /** Every partition's final log, read from offset 0 (partition → records in offset order). */
  readonly logs: ReadonlyMap<number, readonly LoggedRecord[]>;
  /** Every record the consumers were handed (repeats after a rebalance are fine). */
  readonly seen: readonly LoggedRecord[];
}

export interface CheckResult {
  readonly violations: readonly Violation[];
  readonly acked: number;
  /** Records in the final logs. */
  readonly logged: number;
  /** Records in the logs that were never acknowledged (sent, outcome unknown). */
  readonly unacknowledgedPresent: number;
  readonly seen: number;
}

const VALUE = /^([A-Za-z0-9_.-]+)\|(\d+)\|/;

/** The unique value of record `seq` of `producer`, padded to `size` bytes when asked. */
export function recordValue(producer: string, seq: number, size = 0): string {
  if (!/^[A-Za-z0-9_.-]+$/.test(producer)) throw new RangeError(`producer name ${producer}: letters, digits, _ . - only`);
  const head = `${producer}|${seq}|`;
  return head.length >= size ? head : head + 'x'.repeat(size - head.length);
}

/** The producer and sequence of a value made by recordValue; null for anything else. */
export function parseValue(value: string | null): { producer: string; seq: number } | null {
  const m = value === null ? null : VALUE.exec(value);
  return m === null ? null : { producer: m[1] as string, seq: Number(m[2]) };
}

const key = (partition: number, offset: bigint): string => `${partition}@${offset}`;

/** A value as messages show it: `producer|seq|` without its padding. */
function show(value: string | null): string {
  const id = parseValue(value);
  return id === null ? String(value) : `${id.producer}|${id.seq}|`;
}

/** Where each value is in the final logs (all its positions). */
function positions(logs: History['logs']): Map<string, LoggedRecord[]> {
  const at = new Map<string, LoggedRecord[]>();
  for (const records of logs.values()) {
    for (const r of records) {
      if (r.value === null) continue;
      const list = at.get(r.value);
      if (list === undefined) at.set(r.value, [r]);
      else list.push(r);
    }
  }
  return at;
}

function checkDuplicates(at: Map<string, LoggedRecord[]>, out: Violation[]): void {
  for (const [value, list] of at) {
    if (list.length < 2) continue;
    out.push({ kind: 'duplicated', partition: list[0]!.partition, detail: `${show(value)} at ${list.map((r) => key(r.partition, r.offset)).join(', ')}` });
  }
}

function checkAcked(acked: readonly AckedRecord[], at: Map<string, LoggedRecord[]>, out: Violation[]): void {
  for (const a of acked) {
    const list = at.get(a.value);
    if (list === undefined) {
      out.push({ kind: 'lost', partition: a.partition, detail: `${show(a.value)} acknowledged at ${key(a.partition, a.offset)} is not in the log` });
    } else if (!list.some((r) => r.partition === a.partition && r.offset === a.offset)) {
      out.push({ kind: 'wrong-offset', partition: a.partition, detail: `${show(a.value)} acknowledged at ${key(a.partition, a.offset)} is at ${list.map((r) => key(r.partition, r.offset)).join(', ')}` });
    }
  }
}

/** Per partition, each producer's sequence numbers must increase with the offset. */
function checkOrder(logs: History['logs'], out: Violation[]): void {
  for (const [partition, records] of logs) {
    const last = new Map<string, { seq: number; offset: bigint }>();
    for (const r of records) {
      const id = parseValue(r.value);
      if (id === null) continue;
      const before = last.get(id.producer);
      // An equal sequence is the same record again: reported as duplicated, not here.
      if (before !== undefined && id.seq < before.seq) {
        out.push({ kind: 'reordered', partition, detail: `${id.producer} seq ${id.seq} at offset ${r.offset} after seq ${before.seq} at offset ${before.offset}` });
      }
      if (before === undefined || id.seq > before.seq) last.set(id.producer, { seq: id.seq, offset: r.offset });
    }
  }
}

function checkSeen(seen: readonly LoggedRecord[], logs: History['logs'], out: Violation[]): void {
  const final = new Map<string, string | null>();
  for (const records of logs.values()) for (const r of records) final.set(key(r.partition, r.offset), r.value);
  const reported = new Set<string>();
  for (const s of seen) {
    const k = key(s.partition, s.offset);
    if (reported.has(k)) continue;
    const now = final.get(k);
    if (now === s.value) continue;
    reported.add(k);
    const why = now === undefined ? 'no record there now' : `${show(now)} there now`;
    out.push({ kind: 'truncated-after-seen', partition: s.partition, detail: `a consumer saw ${show(s.value)} at ${k}; ${why}` });
  }
}

export function checkHistory(history: History): CheckResult {
  const violations: Violation[] = [];
  const at = positions(history.logs);
  checkDuplicates(at, violations);
  checkAcked(history.acked, at, violations);
  checkOrder(history.logs, violations);
  checkSeen(history.seen, history.logs, violations);
  const ackedValues = new Set(history.acked.map((a) => a.value));
  let logged = 0;
  let unacknowledgedPresent = 0;
  for (const records of history.logs.values()) {
    logged += records.length;
    for (const r of records) if (r.value !== null && !ackedValues.has(r.value)) unacknowledgedPresent++;
  }
  return { violations, acked: history.acked.length, logged, unacknowledgedPresent, seen: history.seen.length };
}

/** A short text of the violations (the first `max` of each kind), for assertion messages. */
export function describeViolations(violations: readonly Violation[], max = 5): string {
  const byKind = new Map<ViolationKind, Violation[]>();
  for (const v of violations) byKind.set(v.kind, [...(byKind.get(v.kind) ?? []), v]);
  return [...byKind].map(([kind, list]) => `${kind} (${list.length}): ${list.slice(0, max).map((v) => `p${v.partition} ${v.detail}`).join('; ')}`).join('\n');
}

export interface Fault {
  readonly name: string;
  readonly atMs: number;
}

export interface Availability {
  readonly fault: string;
  /** The longest time without an acknowledgement from the fault until the next fault (or the end). */
  readonly longestGapMs: number;
  readonly acks: number;
}

/**
 * Per fault, the longest gap between acknowledgements in its window (from
 * the fault to the next one, or to `endMs`), counting the gap from the
 * fault to the first acknowledgement after it, and from the last one to the
 * end of the window when no acknowledgement closes it.
 */
export function availability(ackTimes: readonly number[], faults: readonly Fault[], endMs: number): Availability[] {
  const times = [...ackTimes].sort((a, b) => a - b);
  return faults.map((f, i) => {
    const until = faults[i + 1]?.atMs ?? endMs;
    let previous = f.atMs;
    let longest = 0;
    let acks = 0;
    for (const t of times) {
      if (t < f.atMs || t > until) continue;
      longest = Math.max(longest, t - previous);
      previous = t;
      acks++;
    }
    longest = Math.max(longest, until - previous);
    return { fault: f.name, longestGapMs: Math.round(longest), acks };
  });
}
