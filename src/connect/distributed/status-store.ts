/**
 * Connector and task statuses in the status topic (Kafka's
 * KafkaStatusBackingStore), with Kafka's keys and JSON values:
 *
 *   status-connector-<name>            {"state", "trace", "worker_id", "generation"}
 *   status-task-<name>-<n>             {"state", "trace", "worker_id", "generation"}
 *   status-topic-<topic>:connector-<name>  {"topic": {"name", "connector", "task", "discoverTimestamp"}}
 *
 * Each worker writes the statuses of what it runs; every worker reads them
 * all, so any worker answers GET .../status. Writes from different workers
 * about the same task may land out of order when it moves (the old owner's
 * UNASSIGNED after the new owner's RUNNING): a status from another worker
 * with an older group generation than the one stored is ignored, as
 * Kafka's putSafe does.
 */
import type { ConsumerRecord } from '../../client/index.js';
import { KafkaLog } from './kafka-log.js';

export interface StoredStatus {
  state: string;
  trace: string | null;
  worker_id: string;
  generation: number;
}

function parse(value: Buffer | null): Record<string, unknown> | null {
  if (value === null) return null;
  try {
    const v: unknown = JSON.parse(value.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export class StatusStore {
  private readonly statuses = new Map<string, StoredStatus>();
  /** Active topics per connector (KIP-558). */
  private readonly topics = new Map<string, Set<string>>();
  readonly log: KafkaLog;

  constructor(options: { bootstrap: string; clientId: string; topic: string; partitions: number; replicationFactor: number }) {
    this.log = new KafkaLog({ ...options, onRecord: (r) => this.apply(r) });
  }

  /** Applies one record of the topic (the log calls it in order; tests feed records directly). */
  apply(r: ConsumerRecord<Buffer | null, Buffer | null>): void {
    const key = r.key?.toString('utf8') ?? '';
    const value = parse(r.value);
    const topic = /^status-topic-(.*):connector-(.*)$/.exec(key);
    if (topic !== null) {
      const [, name = '', connector = ''] = topic;
      if (value === null) this.topics.get(connector)?.delete(name);
      else this.topicSet(connector).add(name);
      return;
    }
    if (!key.startsWith('status-connector-') && !key.startsWith('status-task-')) return;
    if (value === null) {
      this.statuses.delete(key);
      return;
    }
    const next: StoredStatus = {
      state: String(value.state ?? 'UNASSIGNED'),
      trace: typeof value.trace === 'string' ? value.trace : null,
      worker_id: String(value.worker_id ?? ''),
      generation: typeof value.generation === 'number' ? value.generation : -1,
    };
    const current = this.statuses.get(key);
    if (current !== undefined && current.worker_id !== next.worker_id && next.generation < current.generation) return;
    this.statuses.set(key, next);
  }

  private topicSet(connector: string): Set<string> {
    let set = this.topics.get(connector);
    if (set === undefined) this.topics.set(connector, (set = new Set()));
    return set;
  }

  connector(name: string): StoredStatus | null {
    return this.statuses.get(`status-connector-${name}`) ?? null;
  }

  task(name: string, id: number): StoredStatus | null {
    return this.statuses.get(`status-task-${name}-${id}`) ?? null;
  }

  activeTopics(name: string): string[] {
    return [...(this.topics.get(name) ?? [])].sort();
  }

  async put(name: string, task: number | null, status: StoredStatus): Promise<void> {
    const key = task === null ? `status-connector-${name}` : `status-task-${name}-${task}`;
    await this.log.send(key, Buffer.from(JSON.stringify(status), 'utf8'));
  }

  async putTopic(connector: string, task: number, topic: string): Promise<void> {
    const value = { topic: { name: topic, connector, task, discoverTimestamp: Date.now() } };
    await this.log.send(`status-topic-${topic}:connector-${connector}`, Buffer.from(JSON.stringify(value), 'utf8'));
  }

  /** Tombstones for a deleted connector's statuses and topics. */
  async remove(connector: string, taskCount: number): Promise<void> {
    await this.log.send(`status-connector-${connector}`, null);
    for (let i = 0; i < taskCount; i++) await this.log.send(`status-task-${connector}-${i}`, null);
    for (const t of this.activeTopics(connector)) await this.log.send(`status-topic-${t}:connector-${connector}`, null);
  }
}
