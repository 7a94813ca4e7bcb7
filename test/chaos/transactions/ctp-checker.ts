/**
 * The checker of the consume-transform-produce chaos test
 * (ctp-processes.test.ts). Pure: it takes what the workers know about their
 * transactions and what was read back, and lists violations.
 *
 * Record format: an input record's value is `<p>:<i>` (input partition p,
 * input offset i); the worker writes it to the output as
 * `<p>:<i>|<label>`, where the label names the transaction
 * (`<p>/<incarnation>/<n>`).
 *
 * Checked (issue 13, "Tests"):
 * - no duplicates: each input record appears at most once in the
 *   read_committed output, and a reader never sees one output offset twice;
 * - no aborted reads: no record of a transaction the worker aborted (its
 *   abort was acknowledged) is read by read_committed readers;
 * - atomicity: a transaction's records are read all or none;
 * - no lost committed writes: every record of an acknowledged commit is read;
 * - offsets: the group's committed offset of each input partition is
 *   exactly the number of its input records in the output, and those are
 *   input offsets 0..committed-1 (what was consumed is what was produced).
 */

/** Outcome of one transaction as its worker saw it. */
export type TxnOutcome = 'committed' | 'aborted' | 'unknown';

export interface TxnRecord {
  readonly label: string;
  /** Input partition and the input offsets it processed. */
  readonly partition: number;
  readonly inputOffsets: readonly number[];
  outcome: TxnOutcome;
}

export interface OutputRecord {
  readonly partition: number;
  readonly offset: bigint;
  readonly value: string;
}

export interface CheckInput {
  readonly inputPartitions: number;
  /** Records per input partition (offsets 0..n-1). */
  readonly inputCount: number;
  readonly transactions: readonly TxnRecord[];
  /** The output topic read with read_committed after the run, every partition from 0 to its LSO. */
  readonly finalRead: readonly OutputRecord[];
  /** What read_committed readers saw during the run. */
  readonly liveRead: readonly OutputRecord[];
  /** The group's committed offset per input partition after the run (-1: none). */
  readonly committed: readonly number[];
  /** Whether every worker reached the end of its input. */
  readonly complete: boolean;
}

export interface CheckResult {
  readonly violations: string[];
  readonly counts: Record<TxnOutcome, number>;
}

export function outputValue(inputValue: string, label: string): string {
  return `${inputValue}|${label}`;
}

function parse(value: string): { partition: number; offset: number; label: string } | null {
  const m = /^(\d+):(\d+)\|(\d+\/\d+\/\d+)$/.exec(value);
  if (m === null) return null;
  return { partition: Number(m[1]), offset: Number(m[2]), label: m[3]! };
}

function checkReader(name: string, read: readonly OutputRecord[], aborted: ReadonlySet<string>, out: string[]): void {
  const offsets = new Set<string>();
  for (const r of read) {
    const at = `${r.partition}@${r.offset}`;
    if (offsets.has(at)) out.push(`${name}: output offset ${at} read twice`);
    offsets.add(at);
    const p = parse(r.value);
    if (p === null) out.push(`${name}: unexpected value '${r.value}' at ${at}`);
    else if (aborted.has(p.label)) out.push(`${name}: aborted read: '${r.value}' at ${at} (transaction ${p.label} was aborted)`);
  }
}

/** What the final read says per transaction and input record. */
function tally(finalRead: readonly OutputRecord[], out: string[]): { perLabel: Map<string, number>; perInput: Map<string, OutputRecord[]> } {
  const perLabel = new Map<string, number>();
  const perInput = new Map<string, OutputRecord[]>();
  for (const r of finalRead) {
    const p = parse(r.value);
    if (p === null) continue;
    perLabel.set(p.label, (perLabel.get(p.label) ?? 0) + 1);
    const key = `${p.partition}:${p.offset}`;
    perInput.set(key, [...(perInput.get(key) ?? []), r]);
  }
  for (const [key, list] of perInput) {
    if (list.length > 1) out.push(`duplicate: input ${key} is in the output ${list.length} times (${list.map((r) => `${r.value} at ${r.partition}@${r.offset}`).join(', ')})`);
  }
  return { perLabel, perInput };
}

function checkOffsets(input: CheckInput, perInput: ReadonlyMap<string, OutputRecord[]>, out: string[]): void {
  for (let p = 0; p < input.inputPartitions; p++) {
    const committed = input.committed[p] ?? -1;
    const present: number[] = [];
    for (let i = 0; i < input.inputCount; i++) if (perInput.has(`${p}:${i}`)) present.push(i);
    const expected = Math.max(committed, 0);
    if (present.length !== expected || (present.length > 0 && present[present.length - 1] !== expected - 1)) {
      out.push(`offsets: input partition ${p} has committed offset ${committed} but the output holds ${present.length} of its records (last input offset ${present.at(-1) ?? 'none'})`);
    }
    if (input.complete && committed !== input.inputCount) out.push(`offsets: input partition ${p} finished at committed offset ${committed}, expected ${input.inputCount}`);
  }
}

export function checkTransactions(input: CheckInput): CheckResult {
  const out: string[] = [];
  const aborted = new Set(input.transactions.filter((t) => t.outcome === 'aborted').map((t) => t.label));
  checkReader('final read', input.finalRead, aborted, out);
  checkReader('live read', input.liveRead, aborted, out);
  const { perLabel, perInput } = tally(input.finalRead, out);
  for (const t of input.transactions) {
    const n = perLabel.get(t.label) ?? 0;
    if (t.outcome === 'committed' && n !== t.inputOffsets.length) out.push(`lost committed write: transaction ${t.label} committed ${t.inputOffsets.length} records, ${n} read`);
    if (t.outcome === 'unknown' && n !== 0 && n !== t.inputOffsets.length) out.push(`partial transaction: ${t.label} has ${n} of its ${t.inputOffsets.length} records`);
  }
  const finalValues = new Set(input.finalRead.map((r) => `${r.partition}@${r.offset}=${r.value}`));
  for (const r of input.liveRead) {
    if (!finalValues.has(`${r.partition}@${r.offset}=${r.value}`)) out.push(`live read '${r.value}' at ${r.partition}@${r.offset} is not in the final read`);
  }
  checkOffsets(input, perInput, out);
  const counts: Record<TxnOutcome, number> = { committed: 0, aborted: 0, unknown: 0 };
  for (const t of input.transactions) counts[t.outcome]++;
  return { violations: out, counts };
}
