/**
 * What this worker of a distributed group runs, and how it follows the
 * group and the config topic (the assignment half of Kafka's
 * DistributedHerder): a new assignment first stops what was revoked
 * (asking for the follow-up rebalance of KIP-415), then starts what was
 * assigned; config records restart a reconfigured connector, stop the tasks
 * whose configs changed (restarted after the rebalance the leader runs for
 * them, if still assigned here), apply target states and restart requests.
 *
 * A connector running here turns its config into task configs; when they
 * differ from the committed ones it hands them to the leader, which writes
 * them (only the leader writes configs).
 */
import type { ConfigStore } from './config-store.js';
import type { KafkaOffsetStore } from './offset-store.js';
import { canonicalJson } from '../runtime/offset-store.js';
import type { TargetState, Worker } from '../runtime/worker.js';
import { taskKey, type Allocation, type ConnectAssignment, type TaskId } from './protocol.js';

export interface LocalWorkDeps {
  worker: Worker;
  configs: ConfigStore;
  offsets: KafkaOffsetStore;
  /** Sends a connector's new task configs to the leader (or writes them, on the leader). */
  sendTaskConfigs(name: string, configs: Record<string, string>[]): Promise<void>;
  requestRejoin(reason: string): void;
  log(message: string): void;
}

export class LocalWork {
  private readonly connectors = new Set<string>();
  private readonly tasks = new Map<string, TaskId>();
  /** Tasks stopped for new configs, started again after the next rebalance if still ours. */
  private readonly reconfigured = new Map<string, TaskId>();

  constructor(private readonly d: LocalWorkDeps) {}

  owned(): Allocation {
    return { connectors: [...this.connectors].sort(), tasks: [...this.tasks.values()] };
  }

  ownsTask(name: string, id: number): boolean {
    return this.tasks.has(taskKey({ connector: name, task: id }));
  }

  async apply(a: ConnectAssignment): Promise<void> {
    const { worker } = this.d;
    for (const t of a.revoked.tasks) {
      this.tasks.delete(taskKey(t));
      this.reconfigured.delete(taskKey(t));
    }
    await Promise.all(a.revoked.tasks.map((t) => worker.stopTask(t.connector, t.task)));
    for (const c of a.revoked.connectors) {
      this.connectors.delete(c);
      await worker.stopConnector(c);
    }
    if (a.revoked.connectors.length + a.revoked.tasks.length > 0) this.d.requestRejoin('revoked connectors or tasks: rejoining to hand them over');
    if (a.assigned.tasks.length > 0 || this.reconfigured.size > 0) await this.d.offsets.log.readToEnd();
    for (const c of a.assigned.connectors) {
      this.connectors.add(c);
      await this.startConnector(c);
    }
    for (const t of a.assigned.tasks) {
      this.tasks.set(taskKey(t), t);
      this.startTask(t);
    }
    for (const [k, t] of this.reconfigured) if (this.tasks.has(k)) this.startTask(t);
    this.reconfigured.clear();
  }

  private async startConnector(name: string): Promise<void> {
    const config = this.d.configs.connectors.get(name);
    if (config === undefined) return;
    await this.d.worker.startConnector(name, config, this.d.configs.targetState(name));
    await this.reconcileTasks(name);
  }

  /** Hands new task configs to the leader when the connector's differ from the committed ones (also on requestTaskReconfiguration). */
  async reconcileTasks(name: string): Promise<void> {
    if (!this.connectors.has(name)) return;
    const generated = await this.d.worker.generateTaskConfigs(name);
    if (generated === null) return;
    if (canonicalJson(generated) === canonicalJson(this.d.configs.tasks.get(name) ?? null)) return;
    // In the background: the leader may be in the middle of the rebalance this worker is part of.
    void this.d.sendTaskConfigs(name, generated).catch((err: unknown) => this.d.log(`[${name}] could not hand task configs to the leader: ${(err as Error).message}`));
  }

  private startTask(t: TaskId): void {
    const config = this.d.configs.connectors.get(t.connector);
    const taskConfig = this.d.configs.tasks.get(t.connector)?.[t.task];
    if (config === undefined || taskConfig === undefined) return;
    const target = this.d.configs.targetState(t.connector);
    this.d.worker.startTask(t.connector, t.task, config, taskConfig, target === 'STARTED' ? 'STARTED' : 'PAUSED');
  }

  // ------------------------------------------------------------- config topic events

  async connectorChanged(name: string, removed: boolean): Promise<void> {
    if (removed) {
      await this.d.worker.stopAll(name);
      this.connectors.delete(name);
      for (const [k, t] of this.tasks) if (t.connector === name) this.tasks.delete(k);
      this.d.worker.forgetTopics(name);
      return;
    }
    const config = this.d.configs.connectors.get(name);
    if (!this.connectors.has(name) || config === undefined) return;
    if (canonicalJson(this.d.worker.connectorConfig(name)) === canonicalJson(config)) return;
    await this.d.worker.stopConnector(name);
    await this.startConnector(name);
  }

  /**
   * New committed task configs: tasks of that connector running here with
   * other configs stop, and start again after the rebalance that follows
   * (the leader runs one for every task commit; this worker asks too).
   */
  async tasksChanged(name: string): Promise<void> {
    const committed = this.d.configs.tasks.get(name) ?? [];
    const mine = [...this.tasks.values()].filter((t) => t.connector === name && canonicalJson(this.d.worker.taskConfig(name, t.task)) !== canonicalJson(committed[t.task] ?? null));
    if (mine.length === 0) return;
    await Promise.all(mine.map((t) => this.d.worker.stopTask(t.connector, t.task)));
    for (const t of mine) this.reconfigured.set(taskKey(t), t);
    this.d.requestRejoin(`task configs of ${name} changed`);
  }

  async targetChanged(name: string, state: TargetState): Promise<void> {
    const { worker } = this.d;
    const wasStopped = worker.connectorState(name)?.state === 'STOPPED';
    if (state === 'PAUSED') worker.pause(name);
    else if (state === 'STOPPED') {
      worker.pause(name);
      if (this.connectors.has(name)) {
        await worker.stopConnector(name);
        await this.startConnector(name);
      }
    } else if (wasStopped && this.connectors.has(name)) {
      await worker.stopConnector(name);
      await this.startConnector(name);
    } else worker.resume(name);
  }

  async restartRequested(name: string, includeTasks: boolean, onlyFailed: boolean): Promise<void> {
    const { worker } = this.d;
    if (this.connectors.has(name) && (!onlyFailed || worker.connectorState(name)?.state === 'FAILED')) {
      await worker.stopConnector(name);
      await this.startConnector(name);
    }
    if (!includeTasks) return;
    for (const t of worker.taskStatuses(name)) if (!onlyFailed || t.state === 'FAILED') await worker.restartTask(name, t.id);
  }

  async stopAll(): Promise<void> {
    const { worker } = this.d;
    await Promise.all([...this.tasks.values()].map((t) => worker.stopTask(t.connector, t.task)));
    for (const c of this.connectors) await worker.stopConnector(c);
    this.tasks.clear();
    this.connectors.clear();
  }

  /** True when this worker runs anything (a lost membership must stop it: others may own it now). */
  get busy(): boolean {
    return this.connectors.size + this.tasks.size > 0;
  }
}
