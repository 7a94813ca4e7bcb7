/**
 * Out-of-process group members with one interface: kcat -G (librdkafka),
 * the confluent-kafka-python member (test/compat/py/groups_confluent.py) and
 * the kafka-python member (test/compat/py/groups_kafka_python.py). Each tracks
 * what it processed and which partitions it currently owns (from its
 * assign/revoke reports), and stops gracefully on SIGTERM (commit, leave).
 */
import { join } from 'node:path';
import { ClientProcess, GROUPS_PY_DIR, SESSION_TIMEOUT_MS, type Processed } from './groups.js';
import { KCAT, PYTHON } from './run.js';

export interface RebalanceEvent {
  kind: 'assign' | 'revoke' | 'lost';
  partitions: number[];
  /** Milliseconds since the member started. */
  at: number;
}

export interface GroupMember {
  readonly name: string;
  readonly proc: ClientProcess;
  readonly processed: Processed[];
  readonly rebalances: RebalanceEvent[];
  /** Partitions owned now (eager: the last assignment; cooperative: assigns minus revokes). */
  owned(): number[];
  /** Errors the client reported (poll errors, error_cb, exceptions), as JSON objects. */
  errors(): Record<string, unknown>[];
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; forced: boolean }>;
}

abstract class BaseMember implements GroupMember {
  readonly processed: Processed[] = [];
  readonly rebalances: RebalanceEvent[] = [];
  protected readonly current = new Set<number>();
  protected readonly started = Date.now();
  abstract readonly proc: ClientProcess;

  constructor(
    readonly name: string,
    protected readonly cooperative: boolean,
  ) {}

  owned(): number[] {
    return [...this.current].sort((a, b) => a - b);
  }

  protected rebalance(kind: RebalanceEvent['kind'], partitions: number[]): void {
    this.rebalances.push({ kind, partitions, at: Date.now() - this.started });
    if (kind === 'assign') {
      if (!this.cooperative) this.current.clear();
      for (const p of partitions) this.current.add(p);
    } else {
      for (const p of partitions) this.current.delete(p);
    }
  }

  errors(): Record<string, unknown>[] {
    return this.proc.eventsOf('error');
  }

  stop(timeoutMs = 20_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; forced: boolean }> {
    return this.proc.stop(timeoutMs);
  }
}

/** A Python member printing the JSON-lines protocol of groups_confluent.py / groups_kafka_python.py. */
export class PythonMember extends BaseMember {
  readonly proc: ClientProcess;

  constructor(name: string, script: 'groups_confluent.py' | 'groups_kafka_python.py', args: Record<string, unknown>, cooperative = false) {
    super(name, cooperative);
    this.proc = new ClientProcess(name, PYTHON, [join(GROUPS_PY_DIR, script), 'member', JSON.stringify({ name, session_timeout_ms: SESSION_TIMEOUT_MS, ...args })]);
    this.proc.onStdoutLine((line) => {
      if (!line.startsWith('{')) return;
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const ev = e['ev'];
      if (ev === 'rec') this.processed.push({ member: name, partition: Number(e['p']), offset: Number(e['o']), value: String(e['v']) });
      else if (ev === 'assign' || ev === 'revoke' || ev === 'lost') this.rebalance(ev, (e['partitions'] as number[]) ?? []);
    });
  }

  /** The member's final report ({"ev":"closed","committed":{..}}), once it has stopped. */
  closed(): Record<string, unknown> | undefined {
    return this.proc.eventsOf('closed')[0];
  }
}

export function confluentMember(
  name: string,
  args: { bootstrap: string; topic: string; group: string; strategy: string; exit_when_idle_s?: number; debug?: string; instance_id?: string; session_timeout_ms?: number },
): PythonMember {
  return new PythonMember(name, 'groups_confluent.py', args, args.strategy === 'cooperative-sticky');
}

export function kafkaPythonMember(name: string, args: { bootstrap: string; topic: string; group: string; exit_when_idle_s?: number }): PythonMember {
  return new PythonMember(name, 'groups_kafka_python.py', args);
}

/**
 * `kcat -G group topic`: records printed as "partition offset value" lines
 * (values must not contain newlines), rebalances parsed from kcat's stderr
 * ("% Group G rebalanced (memberid M): assigned: T [0], T [3]" for eager,
 * "% Group G rebalanced: incremental assign of N partition(s) (...): T [1]"
 * for cooperative). kcat commits (auto-commit) and leaves on SIGTERM.
 */
export class KcatMember extends BaseMember {
  readonly proc: ClientProcess;
  readonly stderrLines: string[] = [];

  constructor(name: string, args: { bootstrap: string; topic: string; group: string; strategy: string; exitAtEnd?: boolean; extra?: Record<string, string> }) {
    super(name, args.strategy === 'cooperative-sticky');
    const props: Record<string, string> = {
      'client.id': name,
      'partition.assignment.strategy': args.strategy,
      'session.timeout.ms': String(SESSION_TIMEOUT_MS),
      'heartbeat.interval.ms': '500',
      'auto.offset.reset': 'earliest',
      'auto.commit.interval.ms': '200',
      'fetch.wait.max.ms': '100',
      'topic.metadata.refresh.interval.ms': '2000',
      ...(args.extra ?? {}),
    };
    const argv = ['-b', args.bootstrap, '-G', args.group, '-u', '-f', '%p %o %s\\n'];
    for (const [k, v] of Object.entries(props)) argv.push('-X', `${k}=${v}`);
    if (args.exitAtEnd === true) argv.push('-e');
    argv.push(args.topic);
    this.proc = new ClientProcess(name, KCAT, argv);
    this.proc.onStdoutLine((line) => {
      const m = /^(\d+) (\d+) (.*)$/.exec(line);
      if (m) this.processed.push({ member: name, partition: Number(m[1]), offset: Number(m[2]), value: m[3] ?? '' });
    });
    let pending: RebalanceEvent['kind'] | null = null;
    this.proc.onStderrLine((line) => {
      this.stderrLines.push(line);
      const parts = [...line.matchAll(/ \[(\d+)\]/g)].map((x) => Number(x[1]));
      let kind: RebalanceEvent['kind'] | null = null;
      if (/rebalanced/.test(line)) {
        if (/assigned:|incremental assign/.test(line)) kind = 'assign';
        else if (/revoked:|incremental (revoke|unassign)/.test(line)) kind = 'revoke';
      }
      if (kind !== null) {
        if (parts.length > 0 || /assigned: *$|revoked: *$|of 0 partition/.test(line)) this.rebalance(kind, parts);
        else pending = kind;
        return;
      }
      if (pending !== null && parts.length > 0) {
        this.rebalance(pending, parts);
        pending = null;
      }
    });
  }

  override errors(): Record<string, unknown>[] {
    return this.stderrLines.filter((l) => /ERROR|FAIL|error/.test(l)).map((line) => ({ line }));
  }
}
