/**
 * AlterPartitionSender on a scripted channel: one request in flight, items
 * submitted meanwhile batched into the next one, a duplicate submit refused,
 * retries on no controller / NOT_CONTROLLER (top-level and per partition),
 * STALE_BROKER_EPOCH for every item, close. Then end to end against a real
 * QuorumController (the local channel).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { AlterPartitionSender, controllerAlterPartitionChannel, type AlterPartitionItem } from '../../../src/broker/alter-partition-sender.js';
import type { AlterPartitionReply, AlterPartitionRequest } from '../../../src/controller/alter-partition.js';
import { LOCAL_CONTROLLER_CHANNEL } from '../../../src/broker/controller-channel.js';
import { controllerCluster } from '../controller/cluster-fixture.js';

interface Call {
  request: AlterPartitionRequest;
  answer: (reply: AlterPartitionReply | Error) => void;
}

class ScriptedChannel {
  readonly calls: Call[] = [];
  send(request: AlterPartitionRequest): Promise<AlterPartitionReply> {
    return new Promise((resolve, reject) => {
      this.calls.push({ request, answer: (r) => (r instanceof Error ? reject(r) : resolve(r)) });
    });
  }
}

const item = (partition: number, isr: number[] = [1, 2]): AlterPartitionItem => ({ topicId: 'T1', topic: 't', partition, leaderEpoch: 3, partitionEpoch: 7, newIsr: isr, leaderRecoveryState: 0 });

/** The controller's success answer for every partition of a request. */
function ok(req: AlterPartitionRequest, errorFor: (partition: number) => number = () => ErrorCode.NONE): AlterPartitionReply {
  return {
    errorCode: ErrorCode.NONE,
    topics: req.topics.map((t) => ({
      topicName: t.topicName,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: errorFor(p.partitionIndex), leaderId: 1, leaderEpoch: p.leaderEpoch, isr: p.newIsr.map((m) => m.brokerId), leaderRecoveryState: 0, partitionEpoch: p.partitionEpoch + 1 })),
    })),
  };
}

const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

function sender(channel: ScriptedChannel): AlterPartitionSender {
  return new AlterPartitionSender({ brokerId: 1, brokerEpoch: () => 42n, channel, retryBackoffMs: 5 });
}

describe('AlterPartitionSender', () => {
  it('keeps one request in flight and batches what is submitted meanwhile', async () => {
    const ch = new ScriptedChannel();
    const s = sender(ch);
    const first = s.submit(item(0));
    await tick();
    const second = s.submit(item(1));
    const third = s.submit(item(2, [1]));
    await tick();
    assert.equal(ch.calls.length, 1, 'the second and third wait for the first answer');
    const call0 = ch.calls[0] as Call;
    assert.equal(call0.request.brokerEpoch, 42n);
    assert.equal(call0.request.version, 3);
    assert.deepEqual(call0.request.topics[0]?.partitions[0]?.newIsr, [{ brokerId: 1, brokerEpoch: -1n }, { brokerId: 2, brokerEpoch: -1n }]);
    call0.answer(ok(call0.request));
    assert.deepEqual(await first, { errorCode: ErrorCode.NONE, leaderId: 1, leaderEpoch: 3, isr: [1, 2], partitionEpoch: 8, leaderRecoveryState: 0 });
    await tick();
    assert.equal(ch.calls.length, 2);
    const call1 = ch.calls[1] as Call;
    assert.deepEqual(call1.request.topics.map((t) => t.partitions.map((p) => p.partitionIndex)), [[1, 2]], 'one topic, both partitions, one request');
    call1.answer(ok(call1.request, (p) => (p === 2 ? ErrorCode.INVALID_UPDATE_VERSION : ErrorCode.NONE)));
    assert.equal((await second).errorCode, ErrorCode.NONE);
    assert.equal((await third).errorCode, ErrorCode.INVALID_UPDATE_VERSION, 'per-partition errors go to their item');
    assert.equal(s.pendingCount, 0);
  });

  it('refuses a second proposal for a partition that is waiting or in flight', async () => {
    const ch = new ScriptedChannel();
    const s = sender(ch);
    const first = s.submit(item(0));
    assert.equal((await s.submit(item(0, [1]))).errorCode, ErrorCode.OPERATION_NOT_ATTEMPTED);
    await tick();
    assert.equal((await s.submit(item(0, [1]))).errorCode, ErrorCode.OPERATION_NOT_ATTEMPTED, 'in flight too');
    ch.calls[0]?.answer(ok(ch.calls[0].request));
    assert.equal((await first).errorCode, ErrorCode.NONE);
    const again = s.submit(item(0, [1]));
    await tick();
    ch.calls[1]?.answer(ok(ch.calls[1].request));
    assert.deepEqual((await again).isr, [1], 'after the answer a new proposal goes');
  });

  it('retries while no controller answers, on NOT_CONTROLLER, and per-partition NOT_CONTROLLER', async () => {
    const ch = new ScriptedChannel();
    const s = sender(ch);
    const a = s.submit(item(0));
    const b = s.submit(item(1));
    await tick();
    ch.calls[0]?.answer(new Error('no active controller'));
    await tick(20);
    assert.equal(ch.calls.length, 2, 'sent again after the backoff');
    ch.calls[1]?.answer({ errorCode: ErrorCode.NOT_CONTROLLER, topics: [] });
    await tick(20);
    assert.equal(ch.calls.length, 3);
    const c3 = ch.calls[2] as Call;
    assert.equal(c3.request.topics[0]?.partitions.length, 2, 'both items again');
    c3.answer(ok(c3.request, (p) => (p === 1 ? ErrorCode.NOT_CONTROLLER : ErrorCode.NONE)));
    assert.equal((await a).errorCode, ErrorCode.NONE);
    await tick(20);
    const c4 = ch.calls[3] as Call;
    assert.deepEqual(c4.request.topics[0]?.partitions.map((p) => p.partitionIndex), [1], 'only the stale-controller item');
    c4.answer(ok(c4.request));
    assert.equal((await b).errorCode, ErrorCode.NONE);
  });

  it('a top-level STALE_BROKER_EPOCH answers every item; close rejects what waits', async () => {
    const ch = new ScriptedChannel();
    const s = sender(ch);
    const a = s.submit(item(0));
    const b = s.submit(item(1));
    await tick();
    ch.calls[0]?.answer({ errorCode: ErrorCode.STALE_BROKER_EPOCH, topics: [] });
    assert.deepEqual([(await a).errorCode, (await b).errorCode], [ErrorCode.STALE_BROKER_EPOCH, ErrorCode.STALE_BROKER_EPOCH]);
    const c = s.submit(item(2));
    s.close();
    await assert.rejects(c, /closed/);
    await assert.rejects(s.submit(item(3)), /closed/);
  });

  it('commits through the local controller (ISR shrink on a 3-replica partition)', async () => {
    const cluster = await controllerCluster(3);
    const topicId = await cluster.createTopic('t', [[1, 2, 3]]);
    const s = new AlterPartitionSender({
      brokerId: 1,
      brokerEpoch: () => cluster.epoch(1),
      channel: controllerAlterPartitionChannel(LOCAL_CONTROLLER_CHANNEL(1), () => (req) => cluster.controller.alterPartition(req)),
    });
    const p = cluster.partition('t');
    const r = await s.submit({ topicId, topic: 't', partition: 0, leaderEpoch: p.leaderEpoch, partitionEpoch: p.partitionEpoch, newIsr: [{ brokerId: 1, brokerEpoch: cluster.epoch(1) }, 3], leaderRecoveryState: 0 });
    assert.deepEqual(r, { errorCode: ErrorCode.NONE, leaderId: 1, leaderEpoch: 0, isr: [1, 3], partitionEpoch: 1, leaderRecoveryState: 0 });
    assert.deepEqual(cluster.partition('t').isr, [1, 3]);
    s.close();
  });
});
