/**
 * The leader's connect assignor with incremental cooperative rebalancing
 * (KIP-415, Kafka's IncrementalCooperativeAssignor), as a pure state
 * machine: the clock is an argument, so table tests drive it round by round.
 *
 * Each round the members report what they run. The assignor
 * - revokes what is no longer configured (deleted connectors, removed tasks)
 *   and duplicates (a task two members claim keeps its first owner);
 * - notices *lost* work: what a member held after the previous round and no
 *   member reports now (its worker left). Lost work is held back for
 *   scheduled.rebalance.max.delay.ms, every member is told the remaining
 *   delay (and rejoins when it ends); a worker that joins empty-handed in the
 *   meantime (the departed one, restarted) gets it at once; when the delay
 *   is over it is assigned like new work;
 * - assigns new work (never run, or revoked in the previous round) to the
 *   members with the fewest connectors (for connectors) or tasks (for tasks);
 * - only when nothing was revoked in the previous round and no lost work is
 *   waiting, revokes from the members above their fair share (the ceiling or
 *   floor of total / members) what they must give up; those members rejoin
 *   after stopping it, and the follow-up round hands it to the others.
 * So a join or a leave moves only what balance requires, and running work
 * that does not move is never stopped.
 */
import { emptyAllocation, taskKey, type Allocation, type TaskId } from './protocol.js';

export interface AssignorMember {
  memberId: string;
  /** What the member reports it runs (its JoinGroup metadata). */
  owned: Allocation;
}

export interface MemberAssignment {
  assigned: Allocation;
  revoked: Allocation;
  delayMs: number;
}

/** One unit of work: a connector instance or a task. */
type Work = { kind: 'connector'; name: string } | { kind: 'task'; id: TaskId };
const workKey = (w: Work): string => (w.kind === 'connector' ? `c:${w.name}` : `t:${taskKey(w.id)}`);

function works(a: Allocation): Work[] {
  return [...a.connectors.map((name): Work => ({ kind: 'connector', name })), ...a.tasks.map((id): Work => ({ kind: 'task', id }))];
}

function toAllocation(list: readonly Work[]): Allocation {
  const out = emptyAllocation();
  for (const w of list) {
    if (w.kind === 'connector') out.connectors.push(w.name);
    else out.tasks.push(w.id);
  }
  out.connectors.sort();
  out.tasks.sort((a, b) => a.connector.localeCompare(b.connector) || a.task - b.task);
  return out;
}

/** Work sorted by connector name then task, so results do not depend on report order. */
function sortWork(list: Work[]): Work[] {
  const rank = (w: Work): [string, number] => (w.kind === 'connector' ? [w.name, -1] : [w.id.connector, w.id.task]);
  return list.sort((a, b) => {
    const [ca, ta] = rank(a);
    const [cb, tb] = rank(b);
    return ca.localeCompare(cb) || ta - tb;
  });
}

interface Round {
  members: string[];
  /** What each member keeps, then receives. */
  holds: Map<string, Map<string, Work>>;
  assigned: Map<string, Work[]>;
  revoked: Map<string, Work[]>;
}

export class IncrementalCooperativeAssignor {
  /** Each member's holdings after the previous round (the leader's memory; empty after a leader change). */
  private previous = new Map<string, Set<string>>();
  private previousWork = new Map<string, Work>();
  private delayed = new Map<string, Work>();
  private deadlineMs = 0;
  private revokedLastRound = false;

  constructor(private readonly maxDelayMs: number) {}

  assign(members: readonly AssignorMember[], configured: Allocation, nowMs: number): Map<string, MemberAssignment> {
    const wanted = new Map(works(configured).map((w) => [workKey(w), w]));
    const round: Round = { members: members.map((m) => m.memberId).sort(), holds: new Map(), assigned: new Map(), revoked: new Map() };
    for (const id of round.members) {
      round.holds.set(id, new Map());
      round.assigned.set(id, []);
      round.revoked.set(id, []);
    }
    this.keepOwned(members, wanted, round);
    const running = new Set([...round.holds.values()].flatMap((h) => [...h.keys()]));
    const fresh = this.trackLost(round, wanted, running, nowMs);
    // Held now: what members kept plus lost work handed to a returning worker.
    const held = new Set([...round.holds.values()].flatMap((h) => [...h.keys()]));
    for (const w of fresh) held.add(workKey(w));
    for (const [k, w] of wanted) if (!held.has(k) && !this.delayed.has(k)) fresh.push(w);
    this.spread(round, sortWork(fresh));
    const revokedNow = this.revokeForBalance(round);
    this.revokedLastRound = revokedNow;
    this.previous = new Map([...round.holds].map(([id, h]) => [id, new Set(h.keys())]));
    this.previousWork = new Map([...round.holds.values()].flatMap((h) => [...h]));
    const delayMs = this.delayed.size > 0 ? Math.max(0, this.deadlineMs - nowMs) : 0;
    const out = new Map<string, MemberAssignment>();
    for (const id of round.members) out.set(id, { assigned: toAllocation(round.assigned.get(id) ?? []), revoked: toAllocation(round.revoked.get(id) ?? []), delayMs });
    return out;
  }

  /** Members keep what they run unless it is gone from the config or already kept by another. */
  private keepOwned(members: readonly AssignorMember[], wanted: Map<string, Work>, round: Round): void {
    const taken = new Set<string>();
    for (const m of [...members].sort((a, b) => a.memberId.localeCompare(b.memberId))) {
      for (const w of works(m.owned)) {
        const k = workKey(w);
        if (!wanted.has(k) || taken.has(k)) round.revoked.get(m.memberId)?.push(w);
        else {
          taken.add(k);
          round.holds.get(m.memberId)?.set(k, w);
        }
      }
    }
  }

  /** Moves newly lost work into the delayed set; returns the work to assign now (delay over, or a returning worker). */
  private trackLost(round: Round, wanted: Map<string, Work>, running: Set<string>, nowMs: number): Work[] {
    for (const k of [...this.delayed.keys()]) if (!wanted.has(k) || running.has(k)) this.delayed.delete(k);
    for (const [k, w] of this.previousWork) if (wanted.has(k) && !running.has(k)) this.delayed.set(k, w);
    if (this.delayed.size === 0) {
      this.deadlineMs = 0;
      return [];
    }
    if (this.deadlineMs === 0) this.deadlineMs = nowMs + this.maxDelayMs;
    const newcomers = round.members.filter((id) => !this.previous.has(id) && (round.holds.get(id)?.size ?? 0) === 0);
    const expired = nowMs >= this.deadlineMs;
    if (!expired && newcomers.length === 0) return [];
    const lost = sortWork([...this.delayed.values()]);
    this.delayed.clear();
    this.deadlineMs = 0;
    if (expired) return lost;
    // A worker joined empty-handed before the delay ended (likely the departed one, restarted): it takes the lost work.
    this.spreadOver(round, lost, newcomers);
    return [];
  }

  private count(round: Round, id: string, kind: Work['kind']): number {
    let n = 0;
    for (const w of round.holds.get(id)?.values() ?? []) if (w.kind === kind) n++;
    return n;
  }

  /** Each item goes to the member with the fewest of its kind (ties: member id order). */
  private spread(round: Round, list: readonly Work[]): void {
    this.spreadOver(round, list, round.members);
  }

  private spreadOver(round: Round, list: readonly Work[], to: readonly string[]): void {
    if (to.length === 0) return;
    for (const w of list) {
      let best = to[0] as string;
      for (const id of to) if (this.count(round, id, w.kind) < this.count(round, best, w.kind)) best = id;
      round.holds.get(best)?.set(workKey(w), w);
      round.assigned.get(best)?.push(w);
    }
  }

  /** Revokes from members above their fair share; false when nothing was (or may be) revoked. */
  private revokeForBalance(round: Round): boolean {
    if (this.revokedLastRound || this.delayed.size > 0 || round.members.length < 2) return false;
    let any = false;
    for (const kind of ['connector', 'task'] as const) {
      const counts = round.members.map((id) => ({ id, n: this.count(round, id, kind) })).sort((a, b) => b.n - a.n || a.id.localeCompare(b.id));
      const total = counts.reduce((s, c) => s + c.n, 0);
      const floor = Math.floor(total / counts.length);
      let ceilings = total % counts.length;
      for (const c of counts) {
        const target = ceilings > 0 ? floor + 1 : floor;
        if (ceilings > 0) ceilings--;
        if (c.n > target) any = this.revokeSome(round, c.id, kind, c.n - target) || any;
      }
    }
    return any;
  }

  /** Takes `n` items of a kind from a member: the ones it got last (highest names and task numbers). */
  private revokeSome(round: Round, id: string, kind: Work['kind'], n: number): boolean {
    const holds = round.holds.get(id);
    if (holds === undefined) return false;
    const fresh = new Set((round.assigned.get(id) ?? []).map(workKey));
    const candidates = sortWork([...holds.values()].filter((w) => w.kind === kind && !fresh.has(workKey(w)))).reverse().slice(0, n);
    for (const w of candidates) {
      holds.delete(workKey(w));
      round.revoked.get(id)?.push(w);
    }
    return candidates.length > 0;
  }
}
