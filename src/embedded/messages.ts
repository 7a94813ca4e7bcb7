/**
 * The messages between startCluster (the caller's thread) and the broker
 * host (a worker thread or a child process). Plain JSON-able data, so the
 * same messages travel over a MessagePort and over a child's IPC channel.
 *
 *   parent -> host: start (once, first), stop
 *   host -> parent: ready | failed (once, answering start), stopped
 */

export interface StartParams {
  /** server.properties keys, already merged (listeners, log.dirs, log.level, the caller's config). */
  readonly config: Readonly<Record<string, string>>;
  /** Child process only: remove this dir when the parent disappears (IPC disconnect). */
  readonly removeOnOrphan: string | null;
}

export type ParentMessage = { readonly type: 'start'; readonly params: StartParams } | { readonly type: 'stop' };

export interface BoundListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

/** What the host measures of its start-up (see StartupTimings in cluster.ts). */
export interface HostTimings {
  /** When the entry module ran, epoch ms (performance.timeOrigin + now(): a worker shares the process's origin). */
  readonly entryAtMs: number;
  /** Loading the config and broker modules (dynamic imports). */
  readonly importMs: number;
  /** runBroker: recover logs, replay metadata, bind, register. */
  readonly runBrokerMs: number;
}

/** An error, flattened to cross the thread or process boundary. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code: string | null;
  readonly stack: string | null;
  /** ConfigError only: one entry per bad key. */
  readonly problems: readonly { readonly key: string; readonly message: string; readonly origin?: string }[] | null;
}

export type HostMessage =
  | {
      readonly type: 'ready';
      readonly nodeId: number;
      readonly clusterId: string;
      readonly listeners: readonly BoundListener[];
      readonly timings: HostTimings;
    }
  | { readonly type: 'failed'; readonly error: WireError }
  | { readonly type: 'stopped' };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** Narrows what arrives from the host; anything else is a bug in this module, not user input. */
export function isHostMessage(v: unknown): v is HostMessage {
  return isObject(v) && (v['type'] === 'ready' || v['type'] === 'failed' || v['type'] === 'stopped');
}

export function isParentMessage(v: unknown): v is ParentMessage {
  return isObject(v) && (v['type'] === 'start' || v['type'] === 'stop');
}

export function toWireError(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), code: null, stack: null, problems: null };
  const code = 'code' in err && (typeof err.code === 'string' || typeof err.code === 'number') ? String(err.code) : null;
  const problems = 'problems' in err && Array.isArray(err.problems) ? (err.problems as WireError['problems']) : null;
  return { name: err.name, message: err.message, code, stack: err.stack ?? null, problems };
}
