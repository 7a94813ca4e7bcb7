/**
 * BrokerLifecycleManager: the broker side of KRaft broker liveness (KIP-631).
 *
 *   registering ──(BrokerRegistration ok: brokerEpoch)──▶ fenced
 *   fenced ──(heartbeat: isCaughtUp && !isFenced)──▶ running          (`ready` resolves)
 *   running ──(heartbeat: isFenced, e.g. after a pause)──▶ fenced      (still heartbeating)
 *   any ──(STALE_BROKER_EPOCH / BROKER_ID_NOT_REGISTERED)──▶ registering
 *   running/fenced ──(controlledShutdown())──▶ pending_shutdown ──(shouldShutDown)──▶ shut_down
 *
 * One request is outstanding at a time. The next heartbeat is sent
 * `heartbeatIntervalMs` after the previous answer — sooner (every
 * `fastHeartbeatMs`) while the broker waits to be unfenced or for
 * shouldShutDown, so start-up and shutdown are not slowed by the interval.
 * NOT_CONTROLLER or an unreachable controller makes the transport try the
 * next controller (`controllerMoved`), after `retryBackoffMs`.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerHeartbeatAnswer, BrokerHeartbeatCall, RegisterBrokerAnswer, RegisterBrokerCall } from './cluster-services.js';

/** How the manager reaches the active controller: over the network, or in-process on a lone node. */
export interface LifecycleTransport {
  register(call: RegisterBrokerCall): Promise<RegisterBrokerAnswer>;
  heartbeat(call: BrokerHeartbeatCall): Promise<BrokerHeartbeatAnswer>;
  /** The controller asked is not (or no longer) active, or did not answer: look elsewhere next time. */
  controllerMoved(): void;
}

export type LifecycleState = 'registering' | 'fenced' | 'running' | 'pending_shutdown' | 'shut_down' | 'closed';

export interface BrokerLifecycleOptions {
  readonly registration: RegisterBrokerCall;
  readonly transport: LifecycleTransport;
  /** The last metadata offset this broker has applied (its image's lastAppliedOffset). */
  readonly metadataOffset: () => bigint;
  readonly heartbeatIntervalMs: number;
  readonly retryBackoffMs: number;
  readonly logger: Logger;
  /** Told about every state change (metrics, logs, the node's serving switch). */
  readonly onStateChange?: (state: LifecycleState, previous: LifecycleState) => void;
  /**
   * Called once, when a heartbeat answer first says this broker's metadata
   * has caught up with the controller's (Kafka's initial catch-up): the
   * node starts serving requests then, before it is unfenced.
   */
  readonly onCaughtUp?: (() => void) | undefined;
}

/** While waiting to be unfenced or for shouldShutDown, heartbeat at most this far apart. */
const FAST_HEARTBEAT_MS_MAX = 100;
/**
 * Controlled shutdown gives up after this many failed heartbeats in a row
 * (no controller answers: the whole cluster is stopping, or the quorum is
 * lost), rather than waiting out its whole timeout.
 */
export const SHUTDOWN_FAILURES_MAX = 5;

export class BrokerLifecycleManager {
  private stateNow: LifecycleState = 'registering';
  private epoch = -1n;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private wantShutDown = false;
  private readonly readyWaiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  private readonly shutdownWaiters: ((agreed: boolean) => void)[] = [];
  private failuresInARow = 0;
  private started = false;
  private caughtUp = false;

  constructor(private readonly opts: BrokerLifecycleOptions) {}

  get state(): LifecycleState {
    return this.stateNow;
  }

  /** The epoch of the current registration; -1n before the first one. */
  get brokerEpoch(): bigint {
    return this.epoch;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Resolves once registered, caught up and unfenced; rejects if closed first. */
  ready(): Promise<void> {
    if (this.stateNow === 'running') return Promise.resolve();
    if (this.stateNow === 'closed' || this.stateNow === 'shut_down') return Promise.reject(new Error('broker lifecycle closed before the broker was unfenced'));
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /**
   * Controlled shutdown: heartbeats with wantShutDown until the controller
   * answers shouldShutDown (leadership moved away), or `timeoutMs` passes.
   * Resolves true when the controller agreed.
   */
  async controlledShutdown(timeoutMs: number): Promise<boolean> {
    if (this.stateNow === 'closed' || this.stateNow === 'shut_down') return this.stateNow === 'shut_down';
    if (this.stateNow === 'registering') return false; // never registered: nothing to move away
    this.wantShutDown = true;
    this.setState('pending_shutdown');
    this.failuresInARow = 0;
    const agreed = new Promise<boolean>((resolve) => this.shutdownWaiters.push(resolve));
    let timeout: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => {
      timeout = setTimeout(() => resolve(false), timeoutMs);
    });
    this.schedule(0);
    try {
      return await Promise.race([agreed, expired]);
    } finally {
      clearTimeout(timeout);
    }
  }

  async close(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.stateNow !== 'shut_down') this.setState('closed');
    for (const w of this.readyWaiters.splice(0)) w.reject(new Error('broker lifecycle closed before the broker was unfenced'));
    await this.inFlight;
  }

  private schedule(delayMs: number): void {
    if (this.stateNow === 'closed' || this.stateNow === 'shut_down') return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.inFlight !== null) return; // the answer schedules the next one
      this.inFlight = this.step().finally(() => {
        this.inFlight = null;
      });
    }, delayMs);
    this.timer.unref();
  }

  private async step(): Promise<void> {
    let next: number;
    try {
      next = this.stateNow === 'registering' ? await this.register() : await this.heartbeat();
    } catch (err) {
      this.opts.logger.debug({ err }, 'controller request failed; trying again');
      this.opts.transport.controllerMoved();
      next = this.opts.retryBackoffMs;
      this.failed();
    }
    this.schedule(next);
  }

  private fastIntervalMs(): number {
    return Math.min(this.opts.heartbeatIntervalMs, FAST_HEARTBEAT_MS_MAX);
  }

  private async register(): Promise<number> {
    const answer = await this.opts.transport.register(this.opts.registration);
    if (this.stateNow === 'closed') return 0;
    if (answer.errorCode === ErrorCode.NOT_CONTROLLER) {
      this.opts.transport.controllerMoved();
      return this.opts.retryBackoffMs;
    }
    if (answer.errorCode !== ErrorCode.NONE) {
      this.opts.logger.warn({ errorCode: answer.errorCode, message: answer.errorMessage ?? null }, 'broker registration refused; retrying');
      return Math.max(this.opts.retryBackoffMs, this.opts.heartbeatIntervalMs);
    }
    this.epoch = answer.brokerEpoch;
    this.opts.logger.info({ brokerEpoch: String(answer.brokerEpoch) }, 'registered with the controller');
    this.setState(this.wantShutDown ? 'pending_shutdown' : 'fenced');
    return 0;
  }

  private async heartbeat(): Promise<number> {
    const answer = await this.opts.transport.heartbeat({
      brokerId: this.opts.registration.brokerId,
      brokerEpoch: this.epoch,
      currentMetadataOffset: this.opts.metadataOffset(),
      wantFence: false,
      wantShutDown: this.wantShutDown,
    });
    if (this.stateNow === 'closed') return 0;
    switch (answer.errorCode) {
      case ErrorCode.NONE:
        break;
      case ErrorCode.NOT_CONTROLLER:
        this.opts.transport.controllerMoved();
        this.failed();
        return this.opts.retryBackoffMs;
      case ErrorCode.STALE_BROKER_EPOCH:
      case ErrorCode.BROKER_ID_NOT_REGISTERED:
        this.opts.logger.warn({ errorCode: answer.errorCode }, 'the controller no longer knows this registration; registering again');
        this.setState('registering');
        return 0;
      default:
        this.opts.logger.warn({ errorCode: answer.errorCode }, 'broker heartbeat failed');
        this.failed();
        return this.opts.retryBackoffMs;
    }
    this.failuresInARow = 0;
    if (answer.isCaughtUp && !this.caughtUp) {
      this.caughtUp = true;
      this.opts.onCaughtUp?.();
    }
    if (this.wantShutDown) {
      if (answer.shouldShutDown) {
        this.setState('shut_down');
        for (const w of this.shutdownWaiters.splice(0)) w(true);
        return 0;
      }
      return this.fastIntervalMs();
    }
    const running = answer.isCaughtUp && !answer.isFenced;
    this.setState(running ? 'running' : 'fenced');
    return running ? this.opts.heartbeatIntervalMs : this.fastIntervalMs();
  }

  /** A heartbeat found no active controller; during a controlled shutdown, enough of them in a row end the wait. */
  private failed(): void {
    this.failuresInARow++;
    if (this.wantShutDown && this.failuresInARow >= SHUTDOWN_FAILURES_MAX) {
      this.opts.logger.warn({ attempts: this.failuresInARow }, 'no active controller answers; stopping without a controlled shutdown');
      for (const w of this.shutdownWaiters.splice(0)) w(false);
    }
  }

  private setState(state: LifecycleState): void {
    const previous = this.stateNow;
    if (previous === state) return;
    this.stateNow = state;
    this.opts.logger.info({ from: previous, to: state }, 'broker lifecycle state');
    if (state === 'running') for (const w of this.readyWaiters.splice(0)) w.resolve();
    this.opts.onStateChange?.(state, previous);
  }
}
