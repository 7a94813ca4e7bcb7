/**
 * The types between a partition leader's ISR decisions (Partition) and
 * whoever carries them to the controller (the ReplicaManager's
 * `alterPartition`, AlterPartition 56 on a broker).
 */

/** The per-partition settings and cluster facts the leader's ISR decisions need (the ReplicaManager provides them). */
export interface ReplicationPolicy {
  /** The topic's min.insync.replicas (one policy serves every partition of a broker, so it is told the topic). */
  minInsyncReplicas(topic: string): number;
  /** replica.lag.time.max.ms: how long a follower may not be caught up before it leaves the ISR. */
  replicaLagTimeMaxMs(): number;
  /** Whether a broker may join an ISR: registered, not fenced, not shutting down (Kafka's isReplicaIsrEligible). */
  isReplicaEligible(brokerId: number): boolean;
}

/** An ISR change the leader asks the controller for (AlterPartition). */
export interface IsrChangeProposal {
  readonly newIsr: readonly number[];
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly kind: 'expand' | 'shrink';
}

/** What the controller answered to a proposal (AlterPartition's per-partition result). */
export type IsrChangeOutcome =
  | { kind: 'committed'; leaderEpoch: number; partitionEpoch: number; isr: readonly number[] }
  | { kind: 'failed'; errorCode: number };
