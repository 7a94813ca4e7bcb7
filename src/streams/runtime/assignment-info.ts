/**
 * What the streams assignor sends through the group protocol (Kafka Streams'
 * SubscriptionInfo and AssignmentInfo): each member's subscription userData
 * says which client (process) it belongs to, where that client answers
 * interactive queries (`application.server`), which tasks it ran, which it
 * kept as standbys and how much changelog state it holds per task (the
 * "task offset sums" of KIP-441), and whether it asks the whole application to
 * shut down. Each assignment userData gives the member its active and standby
 * tasks, the tasks of every client by endpoint, and an error code.
 *
 * Encoding: versioned JSON (UTF-8), not Kafka's binary layout: the group
 * protocol is named 'tributary-stream', so a Java Kafka Streams member cannot
 * join the same group by mistake (the broker refuses the mixed protocols).
 */

/** Kafka's AssignorError codes sent in the assignment. */
export const AssignorError = {
  NONE: 0,
  INCOMPLETE_SOURCE_TOPIC_METADATA: 1,
  SHUTDOWN_REQUESTED: 2,
} as const;

/** A task id: `<sub-topology>_<partition>` (Kafka's TaskId.toString()). */
export type TaskId = string;

export function taskIdOf(subtopology: number, partition: number): TaskId {
  return `${subtopology}_${partition}`;
}

export function parseTaskId(id: TaskId): { subtopology: number; partition: number } {
  const [s, p] = id.split('_');
  return { subtopology: Number(s), partition: Number(p) };
}

/** Sorts task ids by sub-topology, then partition. */
export function compareTaskIds(a: TaskId, b: TaskId): number {
  const x = parseTaskId(a);
  const y = parseTaskId(b);
  return x.subtopology - y.subtopology || x.partition - y.partition;
}

/** A member's subscription userData. */
export interface SubscriptionInfo {
  /** One id per KafkaStreams instance: its members are one client. */
  processId: string;
  /** 'host:port' of `application.server`, or null. */
  endpoint: string | null;
  prevActive: TaskId[];
  prevStandby: TaskId[];
  /** Per task with local state: the sum of the changelog offsets it holds. */
  offsetSums: Map<TaskId, bigint>;
  /** SHUTDOWN_APPLICATION: every instance is to shut down. */
  shutdownRequested: boolean;
}

/** The tasks of one client, as every member learns them. */
export interface HostTasks {
  active: TaskId[];
  standby: TaskId[];
}

/** A member's assignment userData. */
export interface AssignmentInfo {
  errorCode: number;
  active: TaskId[];
  standby: TaskId[];
  /** By endpoint ('host:port'), for the clients that set application.server. */
  hosts: Map<string, HostTasks>;
}

const VERSION = 1;

export function encodeSubscriptionInfo(info: SubscriptionInfo): Buffer {
  return Buffer.from(
    JSON.stringify({
      version: VERSION,
      processId: info.processId,
      endpoint: info.endpoint,
      prevActive: info.prevActive,
      prevStandby: info.prevStandby,
      offsetSums: Object.fromEntries([...info.offsetSums].map(([k, v]) => [k, v.toString()])),
      shutdownRequested: info.shutdownRequested,
    }),
  );
}

/** The subscription info, or null when the userData is missing or not ours. */
export function decodeSubscriptionInfo(data: Buffer | null | undefined): SubscriptionInfo | null {
  const o = parse(data);
  if (o === null || typeof o['processId'] !== 'string') return null;
  const sums = (o['offsetSums'] ?? {}) as Record<string, string>;
  return {
    processId: o['processId'],
    endpoint: typeof o['endpoint'] === 'string' ? o['endpoint'] : null,
    prevActive: strings(o['prevActive']),
    prevStandby: strings(o['prevStandby']),
    offsetSums: new Map(Object.entries(sums).map(([k, v]) => [k, BigInt(v)])),
    shutdownRequested: o['shutdownRequested'] === true,
  };
}

export function encodeAssignmentInfo(info: AssignmentInfo): Buffer {
  return Buffer.from(
    JSON.stringify({
      version: VERSION,
      errorCode: info.errorCode,
      active: info.active,
      standby: info.standby,
      hosts: Object.fromEntries(info.hosts),
    }),
  );
}

export function decodeAssignmentInfo(data: Buffer | null | undefined): AssignmentInfo | null {
  const o = parse(data);
  if (o === null || typeof o['errorCode'] !== 'number') return null;
  const hosts = (o['hosts'] ?? {}) as Record<string, { active?: unknown; standby?: unknown }>;
  return {
    errorCode: o['errorCode'],
    active: strings(o['active']),
    standby: strings(o['standby']),
    hosts: new Map(Object.entries(hosts).map(([k, v]) => [k, { active: strings(v.active), standby: strings(v.standby) }])),
  };
}

function parse(data: Buffer | null | undefined): Record<string, unknown> | null {
  if (data === null || data === undefined || data.length === 0) return null;
  try {
    const o = JSON.parse(data.toString('utf8')) as unknown;
    if (typeof o !== 'object' || o === null || (o as { version?: unknown }).version !== VERSION) return null;
    return o as Record<string, unknown>;
  } catch {
    return null;
  }
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
