/**
 * The Consumer's group glue: a GroupMember for subscribe() mode, the
 * assignor names, and the policy of *when* rebalances run.
 *
 * Rebalances run in the background (consumer.ts drives GroupMember as soon
 * as a rejoin is needed), but a revoke waits for a safe point: the
 * application is not inside a batch. So a revoke never happens while the
 * application is still processing records of the revoked partition, and
 * the positions committed on revoke are those of records it has finished;
 * with cooperative-sticky, kept partitions are consumed during the rebalance.
 */
import { RangeAssignor, RoundRobinAssignor, type Assignor } from './assignors.js';
import type { Cluster } from './cluster.js';
import type { TopicPartitions } from './consumer-protocol.js';
import type { AssignorOption, ConsumerOptions } from './consumer-types.js';
import { invalidArgument } from '../net/errors.js';
import { GroupMember, type GenerationInfo } from './group.js';
import { CooperativeStickyAssignor } from './sticky-assignor.js';

/** The Consumer's default: incremental rebalancing. Add 'range' for groups with kafkajs members (then eager). */
export const CONSUMER_ASSIGNORS_DEFAULT: readonly AssignorOption[] = ['cooperative-sticky'];

const BY_NAME: ReadonlyMap<string, Assignor> = new Map([
  [CooperativeStickyAssignor.name, CooperativeStickyAssignor],
  [RangeAssignor.name, RangeAssignor],
  [RoundRobinAssignor.name, RoundRobinAssignor],
]);

export function resolveAssignors(options: readonly AssignorOption[]): Assignor[] {
  if (options.length === 0) throw invalidArgument('assignors: give at least one');
  return options.map((o) => {
    if (typeof o !== 'string') return o;
    const a = BY_NAME.get(o);
    if (a === undefined) throw invalidArgument(`unknown assignor '${String(o)}' (cooperative-sticky, range, roundrobin, or an Assignor object)`);
    return a;
  });
}

export interface GroupCallbacks {
  assigned(added: TopicPartitions[], generation: GenerationInfo): Promise<void>;
  revoked(partitions: TopicPartitions[]): Promise<void>;
  lost(partitions: TopicPartitions[]): Promise<void>;
  /** The heartbeat saw a rebalance: drive it at the next safe point. */
  rejoinNeeded(): void;
  /** A background error (heartbeat) the application should see. */
  error(err: unknown): void;
}

export function createMember<K, V>(
  cluster: Cluster,
  options: ConsumerOptions<K, V>,
  topics: readonly string[],
  pattern: boolean,
  callbacks: GroupCallbacks,
): GroupMember {
  const groupId = options.groupId;
  if (groupId === undefined) throw invalidArgument('subscribe() needs a groupId (or use assign())');
  return new GroupMember(cluster, {
    groupId,
    topics,
    allowEmptyTopics: pattern,
    assignors: resolveAssignors(options.assignors ?? CONSUMER_ASSIGNORS_DEFAULT),
    groupInstanceId: options.groupInstanceId ?? null,
    // Also in the subscription (v3), for rack-aware assignors.
    rackId: options.rackId ?? null,
    ...(options.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: options.sessionTimeoutMs } : {}),
    ...(options.rebalanceTimeoutMs !== undefined ? { rebalanceTimeoutMs: options.rebalanceTimeoutMs } : {}),
    ...(options.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: options.heartbeatIntervalMs } : {}),
    connection: { clientId: options.clientId ?? 'tributary-consumer', sasl: options.sasl ?? options.clusterOptions?.sasl, tls: options.tls ?? options.clusterOptions?.tls },
    onAssigned: (_all, generation, added) => callbacks.assigned(added, generation),
    onRevoked: (partitions) => callbacks.revoked(partitions),
    onLost: (partitions) => callbacks.lost(partitions),
    onRejoinNeeded: () => callbacks.rejoinNeeded(),
    onError: (err) => callbacks.error(err),
  });
}

/**
 * Whether a batch is with the application, and the revokes waiting for it to
 * come back: the safe point at which a revoke may commit and call the
 * listener.
 */
export class SafePoint {
  /** A batch is with the application (between handing it out and the next pull). */
  private delivering = false;
  private waiters: (() => void)[] = [];

  /** A batch was handed to the application. */
  enter(): void {
    this.delivering = true;
  }

  /** The application is not inside a batch (any more): wakes the revokes waiting for a safe point. */
  leave(): void {
    this.delivering = false;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when the application is not inside a batch (at once when it is not, or once the consumer is closed). */
  reached(closed: boolean): Promise<void> {
    if (!this.delivering || closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
