/**
 * A QuorumController over a MemoryMetadataLog with `n` registered, unfenced
 * brokers (ids 1..n) and a manual clock: the controller-level cluster the
 * replication tests use (RF 3 needs no running broker).
 */
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { QuorumController, type ControllerOptions } from '../../../src/controller/controller.js';
import { MetadataImage, type PartitionState } from '../../../src/controller/metadata/image.js';
import { MetadataPublisher } from '../../../src/controller/metadata/publisher.js';
import type { Election } from '../../../src/controller/leadership.js';
import { MemoryMetadataLog, newTopic } from './fixtures.js';

export interface ControllerCluster {
  controller: QuorumController;
  image: MetadataImage;
  log: MemoryMetadataLog;
  clock: ManualClock;
  elections: Election[];
  epoch(brokerId: number): bigint;
  /** Registers broker `id` (again: a new incarnation; `clean` names its last epoch) and unfences it. */
  start(id: number, clean?: boolean): Promise<void>;
  heartbeat(id: number, flags?: { wantFence?: boolean; wantShutDown?: boolean }): ReturnType<QuorumController['brokerHeartbeat']>;
  /** Creates `name` with the given replica lists (one per partition). */
  createTopic(name: string, assignments: number[][], configs?: { name: string; value: string }[]): Promise<string>;
  partition(name: string, id?: number): PartitionState;
}

let incarnation = 0;

export async function controllerCluster(n: number, opts: Partial<ControllerOptions> = {}): Promise<ControllerCluster> {
  const log = new MemoryMetadataLog();
  const image = new MetadataImage('c');
  const publisher = new MetadataPublisher(image, (e) => {
    throw e;
  });
  await log.start(publisher.handleCommit);
  publisher.finishLoad();
  const clock = new ManualClock();
  const elections: Election[] = [];
  const controller = new QuorumController({
    nodeId: 100,
    log,
    image,
    random: new SeededRandom(7),
    numPartitionsDefault: 1,
    replicationFactorDefault: 1,
    validateTopicConfigs: () => [],
    clock,
    onElections: (e) => elections.push(...e),
    ...opts,
  });
  const epoch = (id: number): bigint => image.broker(id)?.brokerEpoch ?? -1n;
  const heartbeat: ControllerCluster['heartbeat'] = (id, flags = {}) =>
    controller.brokerHeartbeat({ brokerId: id, brokerEpoch: epoch(id), currentMetadataOffset: image.lastAppliedOffset, wantFence: flags.wantFence ?? false, wantShutDown: flags.wantShutDown ?? false });
  const start = async (id: number, clean = true): Promise<void> => {
    incarnation++;
    const previousBrokerEpoch = clean ? epoch(id) : -1n;
    const reg = await controller.registerBroker({ brokerId: id, incarnationId: Buffer.alloc(16, incarnation).toString('base64url'), endpoints: [], rack: null, previousBrokerEpoch });
    assert.equal(reg.errorCode, ErrorCode.NONE);
    const hb = await heartbeat(id);
    assert.equal(hb.isFenced, false);
  };
  for (let id = 1; id <= n; id++) await start(id);
  const createTopic = async (name: string, assignments: number[][], configs: { name: string; value: string }[] = []): Promise<string> => {
    const [r] = await controller.createTopics(
      [newTopic(name, { numPartitions: -1, replicationFactor: -1, assignments: assignments.map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })), configs })],
      { validateOnly: false },
    );
    assert.equal(r?.errorCode, ErrorCode.NONE, r?.errorMessage ?? '');
    return image.topicByName(name)?.topicId as string;
  };
  const partition = (name: string, id = 0): PartitionState => {
    const p = image.partition(name, id);
    assert.ok(p !== undefined, `${name}-${id} exists`);
    return p;
  };
  return { controller, image, log, clock, elections, epoch, start, heartbeat, createTopic, partition };
}
