/**
 * One member of a classic consumer group (Kafka's MemberMetadata), and the
 * tiny parser of the consumer protocol's subscription bytes the coordinator
 * needs for OffsetDelete and offset expiry (which topics a group consumes).
 */
import type { TimerHandle } from './types.js';

export interface ProtocolEntry {
  readonly name: string;
  readonly metadata: Buffer;
}

/** What a pending JoinGroup is answered with (see coordinator-types.ts JoinGroupResult). */
export type JoinCallback = (result: JoinResultInternal) => void;
export type SyncCallback = (result: SyncResultInternal) => void;

export interface JoinResultInternal {
  readonly errorCode: number;
  readonly generationId: number;
  readonly protocolName: string;
  readonly leaderId: string;
  readonly memberId: string;
  readonly members: readonly { readonly memberId: string; readonly groupInstanceId: string | null; readonly metadata: Buffer }[];
}

export interface SyncResultInternal {
  readonly errorCode: number;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly assignment: Buffer;
}

/**
 * Mutable per-member state. Owned by its Group; the coordinator changes it only
 * through Group methods so the protocol vote counts stay right.
 */
export class Member {
  memberId: string;
  readonly groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  /** In the member's order of preference. */
  protocols: readonly ProtocolEntry[];
  assignment: Buffer = Buffer.alloc(0);
  /** Set while a JoinGroup of this member waits for the rebalance to complete. */
  awaitingJoin: JoinCallback | null = null;
  /** Set while a SyncGroup of this member waits for the leader's assignment. */
  awaitingSync: SyncCallback | null = null;
  /**
   * True from the first join until its JoinGroup is answered: such a member
   * has no id it could heartbeat with, so its "session" is the new-member
   * join timeout, and awaiting a join does not keep it alive (Kafka isNew).
   */
  isNew = false;
  /** The generation this member last joined (or was loaded with). */
  joinedGenerationId = -1;
  /** The session timer (heartbeat expiration). */
  sessionTimer: TimerHandle | null = null;

  constructor(init: {
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    rebalanceTimeoutMs: number;
    sessionTimeoutMs: number;
    protocolType: string;
    protocols: readonly ProtocolEntry[];
  }) {
    this.memberId = init.memberId;
    this.groupInstanceId = init.groupInstanceId;
    this.clientId = init.clientId;
    this.clientHost = init.clientHost;
    this.rebalanceTimeoutMs = init.rebalanceTimeoutMs;
    this.sessionTimeoutMs = init.sessionTimeoutMs;
    this.protocolType = init.protocolType;
    this.protocols = init.protocols;
  }

  get isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== null;
  }

  supports(protocolName: string): boolean {
    return this.protocols.some((p) => p.name === protocolName);
  }

  metadataFor(protocolName: string): Buffer {
    const p = this.protocols.find((x) => x.name === protocolName);
    return p === undefined ? Buffer.alloc(0) : p.metadata;
  }

  /** Same protocol names and metadata in the same order (Kafka MemberMetadata.matches). */
  matches(protocols: readonly ProtocolEntry[]): boolean {
    if (protocols.length !== this.protocols.length) return false;
    return protocols.every((p, i) => {
      const mine = this.protocols[i];
      return mine !== undefined && mine.name === p.name && mine.metadata.equals(p.metadata);
    });
  }

  /** Kafka's vote: the first of this member's protocols that is a candidate. */
  vote(candidates: ReadonlySet<string>): string {
    const p = this.protocols.find((x) => candidates.has(x.name));
    if (p === undefined) throw new Error(`member ${this.memberId} supports none of ${[...candidates].join(',')}`);
    return p.name;
  }

  cancelSessionTimer(): void {
    this.sessionTimer?.cancel();
    this.sessionTimer = null;
  }
}

/** The protocol type of Kafka's consumer (KafkaConsumer, and every client in docs/compatibility.md). */
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/**
 * The topics of a ConsumerProtocolSubscription (any version: int16 version,
 * then an array of strings; later fields are ignored). Returns null when the
 * bytes do not parse: a group is then treated as subscribed to nothing we
 * know of, as Kafka does (its subscribedTopics is None).
 */
export function parseSubscriptionTopics(bytes: Buffer): string[] | null {
  if (bytes.length < 6) return null;
  const version = bytes.readInt16BE(0);
  if (version < 0) return null;
  const count = bytes.readInt32BE(2);
  if (count < 0 || count > bytes.length) return null;
  const topics: string[] = [];
  let pos = 6;
  for (let i = 0; i < count; i++) {
    if (pos + 2 > bytes.length) return null;
    const len = bytes.readInt16BE(pos);
    pos += 2;
    if (len < 0 || pos + len > bytes.length) return null;
    topics.push(bytes.toString('utf8', pos, pos + len));
    pos += len;
  }
  return topics;
}

/** Builds a v0 ConsumerProtocolSubscription (tests and simple clients). */
export function encodeSubscription(topics: readonly string[], userData: Buffer | null = null): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(6);
  head.writeInt16BE(0, 0);
  head.writeInt32BE(topics.length, 2);
  parts.push(head);
  for (const t of topics) {
    const s = Buffer.from(t, 'utf8');
    const len = Buffer.alloc(2);
    len.writeInt16BE(s.length, 0);
    parts.push(len, s);
  }
  const ud = Buffer.alloc(4);
  ud.writeInt32BE(userData === null ? -1 : userData.length, 0);
  parts.push(ud);
  if (userData !== null) parts.push(userData);
  return Buffer.concat(parts);
}
