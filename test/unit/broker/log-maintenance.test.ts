/**
 * The broker's background log maintenance (src/broker/log-maintenance.ts):
 * running out of file descriptors in the background is transient (the
 * work is retried and the broker keeps serving), any other storage failure
 * stops the broker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from 'pino';
import { startLogMaintenance, type LogMaintenanceDeps } from '../../../src/broker/log-maintenance.js';
import { StorageError } from '../../../src/storage/errors.js';
import type { LogManager } from '../../../src/storage/log-manager.js';
import { until } from '../../helpers/until.js';

const fileLimit = (): StorageError => new StorageError('ERR_TRIB_STORAGE_FILE_LIMIT', 'out of file descriptors opening x (EMFILE)');

/** A log manager whose recovery and tick fail as told, counting their calls. */
function failingLogManager(opts: { recoveryFailures: number; tickError: () => Error }) {
  const calls = { recoverSome: 0, tick: 0 };
  let left = 3;
  const manager = {
    get recoveryQueueLength(): number {
      return left;
    },
    recoverSome(): number {
      calls.recoverSome++;
      if (calls.recoverSome <= opts.recoveryFailures) throw fileLimit();
      left = 0;
      return 0;
    },
    tick(): never {
      calls.tick++;
      throw opts.tickError();
    },
    cleaner: { cleanOneStep: async () => ({ kind: 'idle' as const }) },
  };
  return { manager: manager as unknown as LogManager, calls };
}

function depsWith(logManager: LogManager) {
  const logged: { level: string; msg: string }[] = [];
  const fatal: string[] = [];
  const record = (level: string) => (_obj: unknown, msg: string): void => {
    logged.push({ level, msg });
  };
  const logger = { info: record('info'), warn: record('warn'), error: record('error'), fatal: record('fatal') } as unknown as Logger;
  const deps = {
    settings: { logTickIntervalMs: 10, logCleanerEnable: false },
    clock: { nowMs: () => Date.now() },
    logger,
    logManager,
    hosted: { all: () => [] },
    producerIds: { removeExpired: () => undefined },
    dynamicConfig: { get: () => 3_600_000 },
    onFatal: (reason: string) => fatal.push(reason),
  } as unknown as LogMaintenanceDeps;
  return { deps, logged, fatal };
}

test('out of file descriptors in the background recovery and the log tick: warned and retried, never fatal', async () => {
  const { manager, calls } = failingLogManager({ recoveryFailures: 1, tickError: fileLimit });
  const { deps, logged, fatal } = depsWith(manager);
  const maintenance = startLogMaintenance(deps);
  try {
    await until('recovery retried and three ticks', async () => (calls.recoverSome >= 2 && calls.tick >= 3 ? true : null), 5000);
    assert.deepEqual(fatal, []);
    assert.ok(logged.some((l) => l.level === 'warn' && l.msg.includes('recovery is out of file descriptors')));
    assert.ok(logged.some((l) => l.level === 'warn' && l.msg.includes('maintenance is out of file descriptors')));
    assert.ok(logged.some((l) => l.level === 'info' && l.msg.includes('recovered every log')));
    assert.equal(process.exitCode ?? 0, 0);
  } finally {
    maintenance.stopTimers();
    await maintenance.stopCleaner();
  }
});

test('any other storage failure in the log tick stops the broker', async () => {
  const { manager } = failingLogManager({ recoveryFailures: 0, tickError: () => new StorageError('ERR_TRIB_STORAGE_CORRUPT', 'bad bytes') });
  const { deps, logged, fatal } = depsWith(manager);
  const maintenance = startLogMaintenance(deps);
  try {
    await until('onFatal', async () => (fatal.length > 0 ? true : null), 5000);
    assert.equal(fatal[0], 'storage failure');
    assert.ok(logged.some((l) => l.level === 'fatal'));
  } finally {
    maintenance.stopTimers();
    await maintenance.stopCleaner();
    process.exitCode = 0; // set by the failure path on purpose
  }
});
