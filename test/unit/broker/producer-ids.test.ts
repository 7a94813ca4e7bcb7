import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { EPOCH_BUMP_MAX, ProducerIdManager, type ProducerIdBlockSource } from '../../../src/broker/producer-ids.js';
import { PRODUCER_ID_BLOCK_SIZE } from '../../../src/controller/controller.js';
import { decodeMetadataRecord, encodeMetadataRecord } from '../../../src/controller/metadata/records.js';
import { boot } from '../controller/fixtures.js';

/** A block source handing out blocks of `size` from `start`, counting calls; `fail` makes it refuse. */
class Blocks implements ProducerIdBlockSource {
  calls = 0;
  fail = false;
  constructor(private next: bigint, private readonly size: number) {}
  async allocateProducerIds() {
    this.calls++;
    if (this.fail) return { errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'not now', firstProducerId: -1n, size: 0 };
    const first = this.next;
    this.next += BigInt(this.size);
    return { errorCode: ErrorCode.NONE, errorMessage: null, firstProducerId: first, size: this.size };
  }
}

describe('ProducerIdManager', () => {
  it('hands out every id of a block once, prefetching the next block at 90%', async () => {
    const blocks = new Blocks(1000n, 10);
    const m = new ProducerIdManager(blocks);
    const ids: bigint[] = [];
    for (let i = 0; i < 25; i++) ids.push((await m.initProducerId(-1n, -1, 4, 0)).producerId);
    assert.deepEqual(ids, Array.from({ length: 25 }, (_, i) => 1000n + BigInt(i)));
    assert.equal(blocks.calls, 3);
  });

  it('concurrent requests on an exhausted block share one controller request and get distinct ids', async () => {
    const blocks = new Blocks(0n, 100);
    const m = new ProducerIdManager(blocks);
    const rs = await Promise.all(Array.from({ length: 50 }, () => m.initProducerId(-1n, -1, 4, 0)));
    assert.equal(new Set(rs.map((r) => r.producerId)).size, 50);
    assert.equal(blocks.calls, 1);
  });

  it('a controller that gives no block answers the retriable COORDINATOR_LOAD_IN_PROGRESS', async () => {
    const blocks = new Blocks(0n, 10);
    blocks.fail = true;
    const m = new ProducerIdManager(blocks);
    const r = await m.initProducerId(-1n, -1, 4, 0);
    assert.equal(r.errorCode, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    blocks.fail = false;
    assert.equal((await m.initProducerId(-1n, -1, 4, 0)).errorCode, ErrorCode.NONE);
  });

  it('bumps a known epoch (KIP-360), fences a wrong one, and gives an exhausted or unknown producer a new id', async () => {
    const m = new ProducerIdManager(new Blocks(0n, 1000));
    const { producerId } = await m.initProducerId(-1n, -1, 4, 0);
    assert.deepEqual(await m.initProducerId(producerId, 0, 3, 0), { errorCode: ErrorCode.NONE, producerId, producerEpoch: 1, message: null });
    assert.equal((await m.initProducerId(producerId, 0, 4, 0)).errorCode, ErrorCode.PRODUCER_FENCED);
    assert.equal((await m.initProducerId(producerId, 0, 3, 0)).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
    assert.equal((await m.initProducerId(producerId, 2, 4, 0)).errorCode, ErrorCode.PRODUCER_FENCED);
    let epoch = 1;
    while (epoch < EPOCH_BUMP_MAX) {
      const r = await m.initProducerId(producerId, epoch, 4, 0);
      assert.equal(r.producerEpoch, epoch + 1);
      epoch = r.producerEpoch;
    }
    const exhausted = await m.initProducerId(producerId, epoch, 4, 0);
    assert.equal(exhausted.errorCode, ErrorCode.NONE);
    assert.notEqual(exhausted.producerId, producerId);
    assert.equal(exhausted.producerEpoch, 0);
    const unknown = await m.initProducerId(999_999n, 7, 4, 0);
    assert.equal(unknown.errorCode, ErrorCode.NONE);
    assert.notEqual(unknown.producerId, 999_999n);
    assert.equal(unknown.producerEpoch, 0);
    assert.equal((await m.initProducerId(5n, -1, 4, 0)).errorCode, ErrorCode.INVALID_REQUEST);
  });

  it('forgets epochs after the expiration time: a bump is then a new id', async () => {
    const m = new ProducerIdManager(new Blocks(0n, 1000));
    const { producerId } = await m.initProducerId(-1n, -1, 4, 1000);
    assert.equal(m.removeExpired(1999, 1000), 0);
    assert.equal(m.removeExpired(2000, 1000), 1);
    const r = await m.initProducerId(producerId, 0, 4, 2000);
    assert.notEqual(r.producerId, producerId);
  });
});

describe('controller producer id blocks (ProducerIdsRecord)', () => {
  it('round-trips the record', () => {
    const record = { type: 'ProducerIdsRecord' as const, data: { brokerId: 1, brokerEpoch: 7n, nextProducerId: 3000n } };
    assert.deepEqual(decodeMetadataRecord(encodeMetadataRecord(record)).record, record);
  });

  it('allocates consecutive blocks that never repeat across a restart', async () => {
    const h = await boot();
    const a = await h.booted.controller.allocateProducerIds(1, 0n);
    const b = await h.booted.controller.allocateProducerIds(1, 0n);
    assert.deepEqual([a.errorCode, a.firstProducerId, a.size], [ErrorCode.NONE, 0n, PRODUCER_ID_BLOCK_SIZE]);
    assert.equal(b.firstProducerId, BigInt(PRODUCER_ID_BLOCK_SIZE));
    await h.booted.close();
    const again = await boot({ fs: h.fs });
    assert.equal(again.booted.image().nextProducerId, 2n * BigInt(PRODUCER_ID_BLOCK_SIZE));
    const c = await again.booted.controller.allocateProducerIds(1, 0n);
    assert.equal(c.firstProducerId, 2n * BigInt(PRODUCER_ID_BLOCK_SIZE));
    // The image's records (a metadata snapshot's content) keep the next id too.
    assert.ok(again.booted.image().toRecords().some((r) => r.type === 'ProducerIdsRecord' && r.data.nextProducerId === 3n * BigInt(PRODUCER_ID_BLOCK_SIZE)));
    await again.booted.close();
  });
});
