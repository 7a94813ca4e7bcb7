/**
 * Task placement across clients (the heart of Kafka Streams' assignor,
 * after KIP-441's HighAvailabilityTaskAssignor, simplified): a pure,
 * deterministic function of the tasks and of what each client reported.
 *
 * Active tasks:
 * 1. Per sub-topology, each client takes its share of the tasks by capacity
 *    (its members, i.e. stream threads), the remainder going to the least
 *    loaded clients: balanced per sub-topology and in total.
 * 2. Sticky: a task stays on the client that ran it, up to that quota (its
 *    previous tasks kept in task order, so the choice is stable).
 * 3. Every other task goes to a client under quota that holds the most of
 *    its state (a standby, or a state directory: the largest changelog
 *    offset sum, i.e. the smallest lag), then to the least loaded one. So a
 *    failed client's tasks go to their standbys, which restore only the tail.
 *
 * Standby tasks (stateful tasks only, `numStandbys` each): on clients that do
 * not hold the task yet, preferring those under the standby quota, then
 * those that already hold its state, then the least loaded. With fewer
 * clients than replicas + 1, fewer standbys are placed (as Kafka).
 */
import { compareTaskIds, type TaskId } from './assignment-info.js';

/** What a client reported, for placement. */
export interface ClientState {
  id: string;
  /** Its members (stream threads); at least 1. */
  capacity: number;
  prevActive: ReadonlySet<TaskId>;
  prevStandby: ReadonlySet<TaskId>;
  /** Changelog offset sums of the state it holds per task. */
  offsetSums: ReadonlyMap<TaskId, bigint>;
}

/** The tasks of each client. */
export interface Placement {
  active: Map<string, TaskId[]>;
  standby: Map<string, TaskId[]>;
}

/** Places active and standby tasks on clients (see the module comment). */
export function placeTasks(tasks: readonly TaskId[], stateful: ReadonlySet<TaskId>, clients: readonly ClientState[], numStandbys: number): Placement {
  const sorted = [...tasks].sort(compareTaskIds);
  const ordered = [...clients].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const active = new Map<string, TaskId[]>(ordered.map((c) => [c.id, []]));
  const standby = new Map<string, TaskId[]>(ordered.map((c) => [c.id, []]));
  if (ordered.length === 0) return { active, standby };
  // Each sub-topology is spread on its own, so every client gets a share of each (as Kafka balances them).
  const bySub = new Map<string, TaskId[]>();
  for (const t of sorted) bySub.set(t.split('_')[0] as string, [...(bySub.get(t.split('_')[0] as string) ?? []), t]);
  for (const group of bySub.values()) placeActive(group, ordered, active);
  placeStandbys(sorted.filter((t) => stateful.has(t)), ordered, numStandbys, active, standby);
  for (const list of [...active.values(), ...standby.values()]) list.sort(compareTaskIds);
  return { active, standby };
}

/** Places one sub-topology's tasks: sticky within each client's target, the rest by state held, then load. */
function placeActive(tasks: readonly TaskId[], clients: readonly ClientState[], active: Map<string, TaskId[]>): void {
  const target = targets(tasks, clients, active);
  const mine = new Map<string, number>(clients.map((c) => [c.id, 0]));
  const take = (c: ClientState, task: TaskId): void => {
    (active.get(c.id) as TaskId[]).push(task);
    mine.set(c.id, (mine.get(c.id) ?? 0) + 1);
  };
  const under = (c: ClientState): boolean => (mine.get(c.id) ?? 0) < (target.get(c.id) ?? 0);
  const unplaced: TaskId[] = [];
  for (const task of tasks) {
    const owner = clients.find((c) => c.prevActive.has(task));
    if (owner !== undefined && under(owner)) take(owner, task);
    else unplaced.push(task);
  }
  const load = (c: ClientState): number => (active.get(c.id) as TaskId[]).length / Math.max(1, c.capacity);
  for (const task of unplaced) {
    const free = clients.filter(under);
    take(pick(free.length > 0 ? free : clients, (a, b) => compareState(b, a, task) || load(a) - load(b)), task);
  }
}

/**
 * How many of a sub-topology's tasks each client takes: its share by
 * capacity, rounded down; the remainder one each to the least loaded
 * clients so far (over all sub-topologies), then those that ran the most of
 * the tasks before (fewest moves), then in id order. Balanced: with equal
 * capacities, counts differ by at most one per sub-topology and in total.
 */
function targets(tasks: readonly TaskId[], clients: readonly ClientState[], active: ReadonlyMap<string, readonly TaskId[]>): Map<string, number> {
  const total = clients.reduce((n, c) => n + Math.max(1, c.capacity), 0);
  const out = new Map(clients.map((c) => [c.id, Math.floor((tasks.length * Math.max(1, c.capacity)) / total)]));
  let rest = tasks.length - [...out.values()].reduce((a, b) => a + b, 0);
  const held = (c: ClientState): number => tasks.filter((t) => c.prevActive.has(t)).length;
  const load = (c: ClientState): number => (active.get(c.id)?.length ?? 0) / Math.max(1, c.capacity);
  const order = [...clients].sort((a, b) => load(a) - load(b) || held(b) - held(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 0; rest > 0; i = (i + 1) % order.length, rest--) {
    const c = order[i] as ClientState;
    out.set(c.id, (out.get(c.id) ?? 0) + 1);
  }
  return out;
}

function placeStandbys(tasks: readonly TaskId[], clients: readonly ClientState[], numStandbys: number, active: Map<string, TaskId[]>, standby: Map<string, TaskId[]>): void {
  if (numStandbys <= 0 || tasks.length === 0) return;
  const total = clients.reduce((n, c) => n + Math.max(1, c.capacity), 0);
  const quota = (c: ClientState): number => Math.ceil((tasks.length * numStandbys * Math.max(1, c.capacity)) / total);
  const count = (c: ClientState): number => (standby.get(c.id) as TaskId[]).length;
  const load = (c: ClientState): number => ((active.get(c.id) as TaskId[]).length + count(c)) / Math.max(1, c.capacity);
  for (let replica = 0; replica < numStandbys; replica++) {
    for (const task of tasks) {
      const free = clients.filter((c) => !(active.get(c.id) as TaskId[]).includes(task) && !(standby.get(c.id) as TaskId[]).includes(task));
      if (free.length === 0) continue;
      const best = pick(free, (a, b) => Number(count(a) >= quota(a)) - Number(count(b) >= quota(b)) || compareState(b, a, task) || load(a) - load(b));
      (standby.get(best.id) as TaskId[]).push(task);
    }
  }
}

/** Positive when `a` holds more of the task's state than `b` (previous active first, then offset sums). */
function compareState(a: ClientState, b: ClientState, task: TaskId): number {
  const rank = (c: ClientState): bigint => (c.prevActive.has(task) ? 1n << 62n : (c.offsetSums.get(task) ?? (c.prevStandby.has(task) ? 0n : -1n)));
  const x = rank(a);
  const y = rank(b);
  return x > y ? 1 : x < y ? -1 : 0;
}

/** The first client in `pool` by `compare` (stable: ties keep the clients' order). */
function pick(pool: readonly ClientState[], compare: (a: ClientState, b: ClientState) => number): ClientState {
  let best = pool[0] as ClientState;
  for (const c of pool.slice(1)) if (compare(c, best) < 0) best = c;
  return best;
}
