/**
 * kafkajs group members for the group compat tests, in-process or in a child
 * process (test/compat/groups/kafkajs-member.ts, which a test SIGKILLs).
 *
 * kafkajs' GROUP_JOIN instrumentation event carries the member's assignment
 * but not the generation; the generation comes from the consumer group's
 * debug log line "Received assignment" ({ groupId, generationId, memberId,
 * memberAssignment }), which a log creator captures here. Both are recorded.
 */
import { Kafka, logLevel, type Consumer, type EachMessagePayload, type LogEntry, type logCreator } from 'kafkajs';
import { HEARTBEAT_INTERVAL_MS, REBALANCE_TIMEOUT_MS, SESSION_TIMEOUT_MS, type OwnedPartitions, type Processed } from './groups.js';

export interface KafkajsAssignment extends OwnedPartitions {
  memberId: string;
}

export interface MemberHooks {
  /** Called for every assignment a member receives (SyncGroup answer), with its generation. */
  onAssignment?: (a: KafkajsAssignment) => void;
  /** Called for every GROUP_JOIN instrumentation event. */
  onGroupJoin?: (payload: { memberId: string; leaderId: string; isLeader: boolean; groupProtocol: string; memberAssignment: Record<string, number[]> }) => void;
  /** kafkajs log lines at ERROR/WARN level, for diagnostics. */
  onLog?: (line: string) => void;
}

/** A kafkajs client whose debug log feeds `hooks` (one per member, so the member name is known). */
export function memberKafka(bootstrap: string, member: string, topic: string, hooks: MemberHooks): Kafka {
  const creator: logCreator = () => (entry: LogEntry) => {
    const { level, log } = entry;
    const { message } = log;
    if (message === 'Received assignment') {
      const l = log as unknown as { generationId: number; memberId: string; memberAssignment: Record<string, number[]> };
      hooks.onAssignment?.({ member, memberId: l.memberId, generationId: l.generationId, partitions: [...(l.memberAssignment[topic] ?? [])].sort((a, b) => a - b) });
      return;
    }
    if (level <= logLevel.WARN && hooks.onLog) {
      const { timestamp: _t, logger: _l, message: _m, ...rest } = log as unknown as Record<string, unknown>;
      hooks.onLog(`[${member}] ${level === logLevel.ERROR ? 'ERROR' : 'WARN'} ${entry.namespace}: ${message} ${JSON.stringify(rest)}`);
    }
  };
  return new Kafka({
    clientId: `tributary-groups-${member}`,
    brokers: [bootstrap],
    logLevel: logLevel.DEBUG,
    logCreator: creator,
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 2000 },
    connectionTimeout: 5000,
    requestTimeout: 15_000,
  });
}

export interface KafkajsMemberOptions {
  bootstrap: string;
  topic: string;
  groupId: string;
  member: string;
  hooks: MemberHooks;
  onMessage: (p: Processed) => void;
  sessionTimeout?: number;
  fromBeginning?: boolean;
}

/** Connects, subscribes and runs a kafkajs consumer (autoCommit: commits after every batch). */
export async function runKafkajsMember(options: KafkajsMemberOptions): Promise<Consumer> {
  const kafka = memberKafka(options.bootstrap, options.member, options.topic, options.hooks);
  const consumer = kafka.consumer({
    groupId: options.groupId,
    sessionTimeout: options.sessionTimeout ?? SESSION_TIMEOUT_MS,
    heartbeatInterval: HEARTBEAT_INTERVAL_MS,
    rebalanceTimeout: REBALANCE_TIMEOUT_MS,
    maxWaitTimeInMs: 250,
    allowAutoTopicCreation: false,
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 2000 },
  });
  if (options.hooks.onGroupJoin) {
    const onGroupJoin = options.hooks.onGroupJoin;
    consumer.on(consumer.events.GROUP_JOIN, (e) => onGroupJoin(e.payload));
  }
  await consumer.connect();
  await consumer.subscribe({ topics: [options.topic], fromBeginning: options.fromBeginning ?? true });
  await consumer.run({
    autoCommit: true,
    eachMessage: async ({ partition, message }: EachMessagePayload) => {
      options.onMessage({ member: options.member, partition, offset: Number(message.offset), value: message.value === null ? '' : message.value.toString('utf8') });
    },
  });
  return consumer;
}
