/**
 * The broker's background log maintenance, on timers for the node's whole
 * life: the log tick (LogManager.tick: flush.ms, retention, checkpoints; and
 * producer id expiry) and the log cleaner's compaction loop; after a crash,
 * first the recovery of the logs start-up left for later (LogManager.recoverSome).
 *
 * Kept apart from broker.ts, which assembles the node and owns the start-up
 * and shutdown order: stop() calls `stopTimers()` and, after the local
 * controller tick is cleared, `stopCleaner()` (waits for the compaction step
 * in progress) before the controlled shutdown and the closing of the logs.
 *
 * A storage failure in either is fatal: `onFatal` stops the broker.
 */
import type { Logger } from 'pino';
import { StorageError } from '../storage/errors.js';
import type { LogManager } from '../storage/log-manager.js';
import type { Clock } from '../util/clock.js';
import type { DynamicBrokerConfig } from './configs/dynamic-broker-config.js';
import type { ProducerIdManager } from './producer-ids.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { BrokerSettings } from './settings.js';

export interface LogMaintenanceDeps {
  readonly settings: BrokerSettings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly logManager: LogManager;
  readonly hosted: ReplicaManager;
  readonly producerIds: ProducerIdManager;
  readonly dynamicConfig: DynamicBrokerConfig;
  /** Stops the broker after a background storage failure (process.exitCode is already 1). */
  readonly onFatal: (reason: string) => void;
}

export interface LogMaintenance {
  /** Clears the log tick and the cleaner's timer. */
  stopTimers(): void;
  /** Ends the compaction loop after its current step and waits for that step. */
  stopCleaner(): Promise<void>;
}

/** Starts the log tick, then the cleaner's timer (both every `settings.logTickIntervalMs`, unref'd). */
export function startLogMaintenance(deps: LogMaintenanceDeps): LogMaintenance {
  const recovery = startBackgroundRecovery(deps);
  const tick = startLogTick(deps);
  const compaction = startCompaction(deps);
  return {
    stopTimers: () => {
      recovery.stop();
      clearInterval(tick);
      clearInterval(compaction.timer);
    },
    stopCleaner: () => compaction.stop(),
  };
}

/**
 * Logs recovered per turn of the event loop: each is a `readdir` and a scan
 * of its active segment (≈ 0.1-1 ms), so a slice stays a few milliseconds and
 * requests are served between slices.
 */
const RECOVERY_LOGS_PER_SLICE = 16;
/** After running out of file descriptors, the background recovery waits this long before its next slice. */
const FILE_LIMIT_RETRY_MS = 1000;

/** A transient shortage of file descriptors (storage errors.ts): never fatal, the work is retried. */
function isFileLimit(err: unknown): boolean {
  return err instanceof StorageError && err.code === 'ERR_TRIB_STORAGE_FILE_LIMIT';
}

/** Recovers the logs a crash left for later, a slice per turn of the event loop, until none is left. */
function startBackgroundRecovery(deps: LogMaintenanceDeps): { stop(): void } {
  const { logger, logManager } = deps;
  let next: NodeJS.Immediate | null = null;
  let retry: NodeJS.Timeout | null = null;
  const startedMs = performance.now();
  const queued = logManager.recoveryQueueLength;
  const slice = (): void => {
    next = null;
    retry = null;
    try {
      if (logManager.recoverSome(RECOVERY_LOGS_PER_SLICE) > 0) next = setImmediate(slice);
      else logger.info({ logs: queued, recoveryMs: Math.round(performance.now() - startedMs) }, 'recovered every log the crash left for later');
    } catch (err) {
      if (isFileLimit(err)) {
        // Out of descriptors is transient: the log stays unrecovered (a request recovers it, or the next try).
        logger.warn({ err }, `background log recovery is out of file descriptors; retrying in ${FILE_LIMIT_RETRY_MS} ms`);
        retry = setTimeout(slice, FILE_LIMIT_RETRY_MS);
        return;
      }
      // As the log tick: a storage failure in the background stops the broker.
      logger.fatal({ err }, 'background log recovery failed; stopping');
      process.exitCode = 1;
      deps.onFatal('storage failure');
    }
  };
  if (queued > 0) next = setImmediate(slice);
  return {
    stop: () => {
      if (next !== null) clearImmediate(next);
      if (retry !== null) clearTimeout(retry);
      next = null;
      retry = null;
    },
  };
}

function startLogTick(deps: LogMaintenanceDeps): NodeJS.Timeout {
  const { settings, clock, logger, logManager, hosted, dynamicConfig } = deps;
  let producersCheckedMs = clock.nowMs();
  const tick = setInterval(() => {
    try {
      const nowMs = clock.nowMs();
      if (nowMs - producersCheckedMs >= dynamicConfig.get('producer.id.expiration.check.interval.ms')) {
        producersCheckedMs = nowMs;
        expireProducers(hosted, deps.producerIds, nowMs, dynamicConfig.get('producer.id.expiration.ms'), logger);
      }
      const result = logManager.tick(clock.nowMs());
      if (result.segmentsDeleted > 0) {
        for (const p of hosted.all()) p.onLogStartOffsetChanged();
        logger.info({ segmentsDeleted: result.segmentsDeleted }, 'retention deleted segments');
      }
    } catch (err) {
      if (isFileLimit(err)) {
        // Out of descriptors is transient (nothing was changed): the next tick tries again.
        logger.warn({ err }, 'background log maintenance is out of file descriptors; retrying at the next tick');
        return;
      }
      // A storage failure in the background is fatal, as in Kafka: better to
      // stop than to keep serving from a log in an unknown state.
      logger.fatal({ err }, 'background log maintenance failed; stopping');
      process.exitCode = 1;
      deps.onFatal('storage failure');
    }
  }, settings.logTickIntervalMs);
  tick.unref();
  return tick;
}

/** producer.id.expiration.ms: forgets producers with no append (or InitProducerId) for that long. */
function expireProducers(hosted: ReplicaManager, ids: ProducerIdManager, nowMs: number, expirationMs: number, logger: Logger): void {
  let removed = 0;
  for (const p of hosted.all()) removed += p.log.removeExpiredProducers(nowMs, expirationMs);
  ids.removeExpired(nowMs, expirationMs);
  if (removed > 0) logger.info({ producersExpired: removed, expirationMs }, 'expired idle producer ids');
}

/**
 * Compaction runs in bounded steps (they may await codecs), one at a time:
 * back to back while there is work, yielding to the event loop between
 * steps so requests keep flowing; idle, it looks again on the next tick.
 */
function startCompaction(deps: LogMaintenanceDeps): { timer: NodeJS.Timeout; stop(): Promise<void> } {
  const { settings, clock, logger, logManager } = deps;
  let cleaning: Promise<void> | null = null;
  let cleanerStopped = false;
  const cleanWhileBusy = async (): Promise<void> => {
    while (!cleanerStopped) {
      const r = await logManager.cleaner.cleanOneStep(clock.nowMs());
      if (r.kind === 'failed') logger.error({ log: r.log, reason: r.reason }, 'log cleaner found corrupt data; that log stays uncompacted');
      if (r.kind === 'idle') return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const cleanerTimer = setInterval(() => {
    if (cleaning !== null || !settings.logCleanerEnable) return;
    cleaning = cleanWhileBusy()
      .catch((err: unknown) => {
        logger.fatal({ err }, 'log cleaner failed; stopping');
        process.exitCode = 1;
        deps.onFatal('storage failure');
      })
      .finally(() => {
        cleaning = null;
      });
  }, settings.logTickIntervalMs);
  cleanerTimer.unref();
  return {
    timer: cleanerTimer,
    stop: async () => {
      cleanerStopped = true;
      await cleaning;
    },
  };
}
