/**
 * The broker side of leadership: committed fence/unfence changes flow through
 * the metadata bridge (applyDelta) into the replica manager, so the local
 * partition stops being led (Produce/Fetch answer NOT_LEADER_OR_FOLLOWER via
 * `isLeader`) while the image says leader -1, and leads again after the
 * broker is unfenced. Real parts: booted controller, its one-voter Raft log
 * on a memory fs, LogManager, ReplicaManager.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { LogManager } from '../../../src/storage/index.js';
import { ReplicaManager } from '../../../src/replication/replica-manager.js';
import { applyDelta, type StartMetadataOptions } from '../../../src/broker/metadata-bridge.js';
import { settingsFromConfig } from '../../../src/broker/settings.js';
import { parseBrokerConfig } from '../../../src/util/config/broker.js';
import { BROKER_SESSION_TIMEOUT_MS_DEFAULT } from '../../../src/controller/controller.js';
import { NO_LEADER } from '../../../src/controller/metadata/records.js';
import { MemoryFileSystem } from '../../../src/storage/index.js';
import { ManualClock } from '../../../src/util/clock.js';
import { systemTimers } from '../../../src/util/timer.js';
import { boot, newTopic } from './fixtures.js';

it('a fenced broker stops leading its partitions and leads them again once unfenced', async () => {
  const fs = new MemoryFileSystem();
  const clock = new ManualClock();
  const logger = pino({ level: 'silent' });
  const settings = settingsFromConfig(parseBrokerConfig({ 'node.id': '1', 'log.dirs': '/logs', listeners: 'PLAINTEXT://127.0.0.1:0' }));
  const { manager } = LogManager.open({ fs, clock, dataDir: '/logs' });
  const replicaManager = new ReplicaManager({
    logManager: manager,
    localNodeId: 1,
    logConfigFor: () => settings.logConfigFor(new Map()),
    topicRules: () => settings.topicRulesFor(new Map()),
    topicExists: () => false,
    clock,
    timers: systemTimers,
    logger,
  });
  const bridge: StartMetadataOptions = { settings, fs, clock, logger, replicaManager, topicOverrides: new Map() };
  const h = await boot({ fs, advertisedListeners: undefined, onDelta: (delta, image) => applyDelta(delta, image, bridge) });
  // The boot harness has its own clock: sessions are timed on it.
  const controller = h.booted.controller;
  const image = h.booted.image();

  const reg = await controller.registerBroker({ brokerId: 1, incarnationId: 'AAAAAAAAAAAAAAAAAAAAAQ', endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9092 }], rack: null });
  assert.equal(reg.errorCode, ErrorCode.NONE);
  const heartbeat = () => controller.brokerHeartbeat({ brokerId: 1, brokerEpoch: reg.brokerEpoch, currentMetadataOffset: image.lastAppliedOffset, wantFence: false, wantShutDown: false });
  assert.equal((await heartbeat()).isFenced, false);
  const [created] = await controller.createTopics([newTopic('events', { numPartitions: 2 })], { validateOnly: false });
  assert.equal(created?.errorCode, ErrorCode.NONE);
  for (const id of [0, 1]) assert.equal(replicaManager.get('events', id)?.isLeader, true);

  h.clock.advance(BROKER_SESSION_TIMEOUT_MS_DEFAULT);
  assert.equal(await controller.tick(), 1);
  for (const id of [0, 1]) {
    assert.equal(image.partition('events', id)?.leader, NO_LEADER);
    const p = replicaManager.get('events', id);
    assert.ok(p !== undefined, 'the replica stays hosted (its data is kept)');
    assert.equal(p.isLeader, false, 'Produce and Fetch answer NOT_LEADER_OR_FOLLOWER');
    assert.equal(p.leaderEpoch, 1);
  }

  assert.equal((await heartbeat()).isFenced, false);
  for (const id of [0, 1]) {
    const p = replicaManager.get('events', id);
    assert.equal(p?.isLeader, true);
    assert.equal(p?.leaderEpoch, 2);
  }
  await h.booted.close();
});
