/**
 * The streams assignor (Kafka's StreamsPartitionAssignor) plugged into the
 * Consumer's group protocol as a cooperative `Assignor` named
 * 'tributary-stream'. The group leader turns partitions into tasks (one per
 * sub-topology and partition number: every source topic's partition p of
 * sub-topology s is task s_p), groups the members into clients by process
 * id, places active and standby tasks (task-placement.ts), gives each member
 * the partitions of its active tasks and, in the assignment userData, its
 * standby tasks and the tasks of every client by `application.server`
 * endpoint (for interactive-query routing).
 *
 * Cooperative (KIP-429): a task whose partitions another member still owns
 * is left out of this round; that member revokes it and rejoins, and the
 * next round hands it over. A member asking for SHUTDOWN_APPLICATION makes
 * the leader send every member the error code SHUTDOWN_REQUESTED.
 */
import type { AssignorMember, MemberAssignment, TopicPartitions } from '../../client/index.js';
import type { Assignor } from '../../client/index.js';
import {
  AssignorError,
  decodeAssignmentInfo,
  decodeSubscriptionInfo,
  encodeAssignmentInfo,
  encodeSubscriptionInfo,
  parseTaskId,
  taskIdOf,
  type AssignmentInfo,
  type HostTasks,
  type SubscriptionInfo,
  type TaskId,
} from './assignment-info.js';
import { placeTasks, type ClientState } from './task-placement.js';

/** What the assignor needs from the runtime. */
export interface StreamsAssignorOptions {
  /** Source topics (resolved names) per sub-topology id. */
  sourceTopics: ReadonlyMap<number, readonly string[]>;
  /** Sub-topologies with logged stores (their tasks get standbys). */
  statefulSubtopologies: ReadonlySet<number>;
  numStandbyReplicas: number;
  /** This member's subscription info, read at each join. */
  subscriptionInfo: () => SubscriptionInfo;
  /** This member's assignment info, after each SyncGroup. */
  onAssignment: (info: AssignmentInfo) => void;
}

export const STREAMS_PROTOCOL = 'tributary-stream';

interface Client extends ClientState {
  endpoint: string | null;
  members: AssignorMember[];
  infos: Map<string, SubscriptionInfo | null>;
}

/** Creates the assignor of one KafkaStreams instance's consumer. */
export function streamsAssignor(options: StreamsAssignorOptions): Assignor {
  const full = (members: readonly AssignorMember[], partitionsPerTopic: ReadonlyMap<string, number>): Map<string, MemberAssignment> => assignTasks(options, members, partitionsPerTopic);
  return {
    name: STREAMS_PROTOCOL,
    protocol: 'cooperative',
    userData: () => encodeSubscriptionInfo(options.subscriptionInfo()),
    assign: (members, partitionsPerTopic) => new Map([...full(members, partitionsPerTopic)].map(([id, a]) => [id, a.partitions])),
    assignWithUserData: full,
    onAssignment(assignment) {
      const info = decodeAssignmentInfo(assignment.userData);
      options.onAssignment(info ?? { errorCode: AssignorError.NONE, active: [], standby: [], hosts: new Map() });
    },
  };
}

/** The tasks of the topology for these partition counts (a sub-topology has as many tasks as its largest source topic). */
export function tasksOf(sourceTopics: ReadonlyMap<number, readonly string[]>, partitionsPerTopic: ReadonlyMap<string, number>): TaskId[] {
  const out: TaskId[] = [];
  for (const [sub, topics] of sourceTopics) {
    const n = Math.max(0, ...topics.map((t) => partitionsPerTopic.get(t) ?? 0));
    for (let p = 0; p < n; p++) out.push(taskIdOf(sub, p));
  }
  return out;
}

function assignTasks(options: StreamsAssignorOptions, members: readonly AssignorMember[], partitionsPerTopic: ReadonlyMap<string, number>): Map<string, MemberAssignment> {
  const clients = groupClients(members);
  const infos = [...clients.values()].flatMap((c) => [...c.infos.values()]);
  if (infos.some((i) => i?.shutdownRequested === true)) {
    const userData = encodeAssignmentInfo({ errorCode: AssignorError.SHUTDOWN_REQUESTED, active: [], standby: [], hosts: new Map() });
    return new Map(members.map((m) => [m.memberId, { partitions: [], userData }]));
  }
  const tasks = tasksOf(options.sourceTopics, partitionsPerTopic);
  const stateful = new Set(tasks.filter((t) => options.statefulSubtopologies.has(parseTaskId(t).subtopology)));
  const placement = placeTasks(tasks, stateful, [...clients.values()], options.numStandbyReplicas);
  const owners = ownersOf(members);
  const perMember = new Map<string, { active: TaskId[]; standby: TaskId[] }>();
  for (const client of clients.values()) {
    const split = splitAmongMembers(client, placement.active.get(client.id) ?? [], placement.standby.get(client.id) ?? []);
    for (const [memberId, tasksOfMember] of split) {
      // Cooperative: a partition still owned by another member moves in the next round.
      tasksOfMember.active = tasksOfMember.active.filter((t) => partitionsOfTask(options, t, partitionsPerTopic).every((p) => (owners.get(p) ?? memberId) === memberId));
      perMember.set(memberId, tasksOfMember);
    }
  }
  const hosts = new Map<string, HostTasks>();
  for (const client of clients.values()) {
    if (client.endpoint === null) continue;
    const ids = client.members.map((m) => m.memberId);
    hosts.set(client.endpoint, {
      active: ids.flatMap((id) => perMember.get(id)?.active ?? []),
      standby: placement.standby.get(client.id) ?? [],
    });
  }
  return new Map(
    members.map((m) => {
      const mine = perMember.get(m.memberId) ?? { active: [], standby: [] };
      const partitions = groupTopics(mine.active.flatMap((t) => partitionsOfTask(options, t, partitionsPerTopic)));
      return [m.memberId, { partitions, userData: encodeAssignmentInfo({ errorCode: AssignorError.NONE, active: mine.active, standby: mine.standby, hosts }) }];
    }),
  );
}

/** Members by process id (a member without our userData is a client of its own). */
function groupClients(members: readonly AssignorMember[]): Map<string, Client> {
  const clients = new Map<string, Client>();
  for (const m of members) {
    const info = decodeSubscriptionInfo(m.subscription.userData);
    const id = info?.processId ?? `member:${m.memberId}`;
    let c = clients.get(id);
    if (c === undefined) {
      c = { id, capacity: 0, endpoint: info?.endpoint ?? null, members: [], infos: new Map(), prevActive: new Set(), prevStandby: new Set(), offsetSums: new Map() };
      clients.set(id, c);
    }
    c.capacity++;
    c.members.push(m);
    c.infos.set(m.memberId, info);
    for (const t of info?.prevActive ?? []) (c.prevActive as Set<TaskId>).add(t);
    for (const t of info?.prevStandby ?? []) (c.prevStandby as Set<TaskId>).add(t);
    for (const [t, sum] of info?.offsetSums ?? []) if (sum > (c.offsetSums.get(t) ?? -1n)) (c.offsetSums as Map<TaskId, bigint>).set(t, sum);
  }
  return clients;
}

/** A client's tasks over its members: sticky to the member that ran a task, balanced; standbys dealt out evenly. */
function splitAmongMembers(client: Client, active: readonly TaskId[], standby: readonly TaskId[]): Map<string, { active: TaskId[]; standby: TaskId[] }> {
  const members = [...client.members].sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
  const out = new Map(members.map((m) => [m.memberId, { active: [] as TaskId[], standby: [] as TaskId[] }]));
  const quota = Math.ceil(active.length / members.length);
  const rest: TaskId[] = [];
  for (const t of active) {
    const prev = members.find((m) => client.infos.get(m.memberId)?.prevActive.includes(t) === true);
    const mine = prev === undefined ? undefined : out.get(prev.memberId);
    if (mine !== undefined && mine.active.length < quota) mine.active.push(t);
    else rest.push(t);
  }
  const lists = [...out.values()];
  for (const t of rest) lists.reduce((a, b) => (b.active.length < a.active.length ? b : a)).active.push(t);
  standby.forEach((t, i) => lists[i % lists.length]?.standby.push(t));
  return out;
}

function partitionsOfTask(options: StreamsAssignorOptions, task: TaskId, partitionsPerTopic: ReadonlyMap<string, number>): string[] {
  const { subtopology, partition } = parseTaskId(task);
  return (options.sourceTopics.get(subtopology) ?? []).filter((t) => partition < (partitionsPerTopic.get(t) ?? 0)).map((t) => `${t}\u0000${partition}`);
}

/** Who owns each partition now (cooperative subscriptions list them). */
function ownersOf(members: readonly AssignorMember[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of members) for (const tp of m.subscription.ownedPartitions ?? []) for (const p of tp.partitions) out.set(`${tp.topic}\u0000${p}`, m.memberId);
  return out;
}

function groupTopics(keys: readonly string[]): TopicPartitions[] {
  const by = new Map<string, number[]>();
  for (const k of keys) {
    const [topic, p] = k.split('\u0000') as [string, string];
    by.set(topic, [...(by.get(topic) ?? []), Number(p)]);
  }
  return [...by].sort(([a], [b]) => (a < b ? -1 : 1)).map(([topic, partitions]) => ({ topic, partitions: partitions.sort((x, y) => x - y) }));
}
