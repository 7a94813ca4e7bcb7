/**
 * Connector configs, task configs, target states and restart requests in
 * the config topic (Kafka's KafkaConfigBackingStore), with Kafka's keys and
 * JSON values (its JsonConverter with schemas disabled), so a topic written
 * by either reads in the other:
 *
 *   connector-<name>          {"properties": {...}}             (tombstone: deleted)
 *   task-<name>-<n>           {"properties": {...}}
 *   commit-<name>             {"tasks": <count>}
 *   target-state-<name>       {"state": "STARTED"|"PAUSED", "state.v2": "STARTED"|"PAUSED"|"STOPPED"}
 *   restart-connector-<name>  {"include-tasks": bool, "only-failed": bool}
 *
 * Task configs only take effect with their commit record, so a reader never
 * sees half of a new set. The topic has one partition: `offset` (the next
 * offset to read) orders every worker's view, and the group protocol
 * carries it so members start work only from an up-to-date view.
 */
import type { ConsumerRecord } from '../../client/index.js';
import type { TargetState } from '../runtime/worker.js';
import { KafkaLog } from './kafka-log.js';

export interface ConfigListener {
  onConnectorConfig(name: string, removed: boolean): void;
  onTaskConfigs(name: string): void;
  onTargetState(name: string, state: TargetState): void;
  onRestartRequest(name: string, includeTasks: boolean, onlyFailed: boolean): void;
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

function parse(value: Buffer | null): Record<string, unknown> | null {
  if (value === null) return null;
  try {
    const v: unknown = JSON.parse(value.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function properties(v: Record<string, unknown> | null): Record<string, string> | null {
  const p = v?.properties;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return null;
  return Object.fromEntries(Object.entries(p).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)]));
}

export class ConfigStore {
  readonly connectors = new Map<string, Record<string, string>>();
  readonly targets = new Map<string, TargetState>();
  /** Committed task configs per connector. */
  readonly tasks = new Map<string, Record<string, string>[]>();
  private readonly pending = new Map<string, Map<number, Record<string, string>>>();
  /** Next offset of the config topic to read: the version of this view. */
  offset = 0n;
  readonly log: KafkaLog;

  constructor(
    options: { bootstrap: string; clientId: string; topic: string; replicationFactor: number },
    private readonly listener: ConfigListener,
  ) {
    this.log = new KafkaLog({ ...options, partitions: 1, onRecord: (r) => this.apply(r) });
  }

  /** Listener calls start after the first read to the end: replaying history (old restart requests) must not act. */
  private started = false;

  async start(): Promise<void> {
    await this.log.start();
    this.started = true;
  }

  private get tell(): ConfigListener | null {
    return this.started ? this.listener : null;
  }

  targetState(name: string): TargetState {
    return this.targets.get(name) ?? 'STARTED';
  }

  /** Applies one record of the topic (the log calls it in order; tests feed records directly). */
  apply(r: ConsumerRecord<Buffer | null, Buffer | null>): void {
    this.offset = r.offset + 1n;
    const key = r.key?.toString('utf8') ?? '';
    const value = parse(r.value);
    const m = /^(connector|task|commit|target-state|restart-connector)-(.*)$/.exec(key);
    if (m === null) return;
    const [, kind, rest = ''] = m;
    if (kind === 'connector') this.applyConnector(rest, properties(value));
    else if (kind === 'task') this.applyTask(rest, properties(value));
    else if (kind === 'commit') this.applyCommit(rest, value);
    else if (kind === 'target-state') this.applyTarget(rest, value);
    else if (value !== null) this.tell?.onRestartRequest(rest, value['include-tasks'] === true, value['only-failed'] === true);
  }

  private applyConnector(name: string, props: Record<string, string> | null): void {
    if (props === null) {
      this.connectors.delete(name);
      this.tasks.delete(name);
      this.targets.delete(name);
      this.pending.delete(name);
    } else {
      this.connectors.set(name, props);
    }
    this.tell?.onConnectorConfig(name, props === null);
  }

  private applyTask(rest: string, props: Record<string, string> | null): void {
    const m = /^(.*)-(\d+)$/.exec(rest);
    if (m === null || props === null) return;
    const [, name = '', n = '0'] = m;
    let p = this.pending.get(name);
    if (p === undefined) this.pending.set(name, (p = new Map()));
    p.set(Number(n), props);
  }

  private applyCommit(name: string, value: Record<string, unknown> | null): void {
    const count = typeof value?.tasks === 'number' ? value.tasks : null;
    if (count === null) return;
    const p = this.pending.get(name) ?? new Map<number, Record<string, string>>();
    const previous = this.tasks.get(name) ?? [];
    const next: Record<string, string>[] = [];
    for (let i = 0; i < count; i++) {
      const c = p.get(i) ?? previous[i];
      // A commit without its task records (compacted away, or a torn write): ignore it, as Kafka does for inconsistent connectors.
      if (c === undefined) return;
      next.push(c);
    }
    this.pending.delete(name);
    this.tasks.set(name, next);
    this.tell?.onTaskConfigs(name);
  }

  private applyTarget(name: string, value: Record<string, unknown> | null): void {
    if (value === null) {
      this.targets.delete(name);
      return;
    }
    const raw = String(value['state.v2'] ?? value.state ?? 'STARTED');
    const state: TargetState = raw === 'PAUSED' || raw === 'STOPPED' ? raw : 'STARTED';
    this.targets.set(name, state);
    this.tell?.onTargetState(name, state);
  }

  // ------------------------------------------------------------- writes (each then read back)

  async putConnectorConfig(name: string, props: Record<string, string>): Promise<void> {
    await this.log.send(`connector-${name}`, json({ properties: props }));
    await this.log.readToEnd();
  }

  async removeConnector(name: string): Promise<void> {
    await this.log.send(`connector-${name}`, null);
    await this.log.send(`target-state-${name}`, null);
    await this.log.readToEnd();
  }

  async putTaskConfigs(name: string, configs: readonly Record<string, string>[]): Promise<void> {
    for (const [i, c] of configs.entries()) await this.log.send(`task-${name}-${i}`, json({ properties: c }));
    await this.log.send(`commit-${name}`, json({ tasks: configs.length }));
    await this.log.readToEnd();
  }

  async putTargetState(name: string, state: TargetState): Promise<void> {
    await this.log.send(`target-state-${name}`, json({ state: state === 'STOPPED' ? 'PAUSED' : state, 'state.v2': state }));
    await this.log.readToEnd();
  }

  async putRestartRequest(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<void> {
    await this.log.send(`restart-connector-${name}`, json({ 'include-tasks': includeTasks, 'only-failed': onlyFailed }));
    await this.log.readToEnd();
  }
}
