/**
 * The worker's membership in its group (Kafka's WorkerCoordinator): a
 * GroupMember of protocolType "connect" whose metadata is this worker's
 * REST URL, its config topic offset and what it runs; the leader reads the
 * config topic to its end, runs the incremental cooperative assignor
 * (assignor.ts) and sends each member what it gains and what it must give
 * up. The leader also remembers which member runs each task and each
 * member's URL, so it can send a task restart on to the task's owner.
 */
import { GroupMember, type Cluster, type GenerationInfo } from '../../client/index.js';
import { IncrementalCooperativeAssignor } from './assignor.js';
import type { DistributedConfig } from './distributed-config.js';
import {
  COMPATIBLE_PROTOCOL,
  CONNECT_PROTOCOL_TYPE,
  decodeAssignment,
  decodeMetadata,
  emptyAllocation,
  encodeAssignment,
  encodeMetadata,
  taskKey,
  type Allocation,
  type ConnectAssignment,
  type TaskId,
} from './protocol.js';

export interface CoordinatorHooks {
  /** What this worker runs now (sent at each join, KIP-415). */
  owned(): Allocation;
  /** The next offset of the config topic this worker has read. */
  configOffset(): bigint;
  /** Leader: every configured connector and committed task, after reading the config topic to its end. */
  configured(): Promise<{ allocation: Allocation; offset: bigint }>;
  /** Every member after each rebalance. */
  onAssignment(assignment: ConnectAssignment, generation: GenerationInfo): Promise<void>;
  /** The group needs this worker to rejoin (heartbeat saw a rebalance). */
  onRejoinNeeded(reason: string): void;
  onError(err: unknown): void;
}

export class WorkerCoordinator {
  readonly member: GroupMember;
  private readonly assignor: IncrementalCooperativeAssignor;
  /** Leader only: member id → URL, and connector/task → member id, as of the last assignment. */
  private urls = new Map<string, string>();
  private holders = new Map<string, string>();

  constructor(
    cluster: Cluster,
    d: DistributedConfig,
    clientId: string,
    private readonly url: () => string,
    private readonly hooks: CoordinatorHooks,
  ) {
    this.assignor = new IncrementalCooperativeAssignor(d.scheduledRebalanceMaxDelayMs);
    this.member = new GroupMember(cluster, {
      groupId: d.groupId,
      topics: [],
      sessionTimeoutMs: d.sessionTimeoutMs,
      heartbeatIntervalMs: d.heartbeatIntervalMs,
      rebalanceTimeoutMs: d.rebalanceTimeoutMs,
      connection: { clientId },
      onRejoinNeeded: (reason) => hooks.onRejoinNeeded(reason),
      onError: (err) => hooks.onError(err),
      protocol: {
        protocolType: CONNECT_PROTOCOL_TYPE,
        metadata: () => [{ name: COMPATIBLE_PROTOCOL, metadata: encodeMetadata({ url: this.url(), configOffset: hooks.configOffset(), allocation: hooks.owned() }) }],
        assign: (generation, members) => this.assign(generation, members),
        onAssignment: (raw, generation) => hooks.onAssignment(decodeAssignment(raw), generation),
      },
    });
  }

  private async assign(generation: GenerationInfo, members: readonly { memberId: string; metadata: Buffer }[]): Promise<Map<string, Buffer>> {
    const { allocation, offset } = await this.hooks.configured();
    const decoded = members.map((m) => {
      try {
        return { memberId: m.memberId, meta: decodeMetadata(m.metadata) };
      } catch {
        // A member whose metadata does not parse runs nothing and gets nothing new.
        return { memberId: m.memberId, meta: { url: '', configOffset: -1n, allocation: null } };
      }
    });
    const result = this.assignor.assign(decoded.map((m) => ({ memberId: m.memberId, owned: m.meta.allocation ?? emptyAllocation() })), allocation, Date.now());
    this.urls = new Map(decoded.map((m) => [m.memberId, m.meta.url]));
    this.holders = new Map();
    const out = new Map<string, Buffer>();
    for (const m of decoded) {
      const a = result.get(m.memberId);
      if (a === undefined) continue;
      const revoked = new Set([...a.revoked.connectors.map((c) => `c:${c}`), ...a.revoked.tasks.map((t) => `t:${taskKey(t)}`)]);
      const owned = m.meta.allocation ?? emptyAllocation();
      for (const c of [...owned.connectors, ...a.assigned.connectors]) if (!revoked.has(`c:${c}`)) this.holders.set(`c:${c}`, m.memberId);
      for (const t of [...owned.tasks, ...a.assigned.tasks]) if (!revoked.has(`t:${taskKey(t)}`)) this.holders.set(`t:${taskKey(t)}`, m.memberId);
      const assignment: ConnectAssignment = { error: 0, leader: generation.memberId, leaderUrl: this.url(), configOffset: offset, assigned: a.assigned, revoked: a.revoked, delayMs: a.delayMs };
      out.set(m.memberId, encodeAssignment(assignment));
    }
    return out;
  }

  /** Leader only: the URL of the worker running a task (null when unknown or unassigned). */
  taskOwnerUrl(task: TaskId): string | null {
    const member = this.holders.get(`t:${taskKey(task)}`);
    return member === undefined ? null : (this.urls.get(member) ?? null);
  }
}
