import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  BATCHES_RETAINED,
  ProducerStateManager,
  SEQUENCE_MAX,
  inSequence,
  lastSequence,
  type AppliedBatch,
  type ProducerCheck,
} from '../../../../src/storage/producer-state/producer-state.js';

const P = 7n;

/** Checks, then applies when accepted (what the log does), at consecutive offsets from `next`. */
class Harness {
  readonly s = new ProducerStateManager();
  next = 0n;

  send(epoch: number, baseSequence: number, count = 1, producerId = P, nowMs = 1000): ProducerCheck {
    const header = { producerId, epoch, baseSequence, lastOffsetDelta: count - 1 };
    const c = this.s.check(header);
    if (c.kind === 'append') {
      const b: AppliedBatch = { ...header, firstOffset: this.next, maxTimestampMs: BigInt(nowMs), control: false, transactional: false, marker: null };
      this.s.apply(b, nowMs);
      this.next += BigInt(count);
    }
    return c;
  }
}

function kind(c: ProducerCheck): string {
  return c.kind === 'error' ? c.error : c.kind;
}

describe('producer state: sequences', () => {
  it('lastSequence and inSequence wrap at Int32 max', () => {
    assert.equal(lastSequence(0, 4), 4);
    assert.equal(lastSequence(SEQUENCE_MAX, 0), SEQUENCE_MAX);
    assert.equal(lastSequence(SEQUENCE_MAX, 1), 0);
    assert.equal(lastSequence(SEQUENCE_MAX - 2, 5), 2);
    assert.ok(inSequence(4, 5));
    assert.ok(inSequence(SEQUENCE_MAX, 0));
    assert.ok(!inSequence(4, 6));
    assert.ok(!inSequence(4, 4));
    assert.ok(!inSequence(SEQUENCE_MAX, 1));
  });

  it('accepts a new producer at any sequence (KIP-360) and then requires the next one', () => {
    const h = new Harness();
    assert.equal(kind(h.send(0, 42, 3)), 'append');
    assert.equal(kind(h.send(0, 45, 2)), 'append');
    assert.equal(kind(h.send(0, 48)), 'out_of_order_sequence');
    assert.equal(kind(h.send(0, 46)), 'out_of_order_sequence');
    assert.equal(kind(h.send(0, 47)), 'append');
  });

  it('answers a duplicate of each of the last 5 batches with its original offsets, and nothing older', () => {
    const h = new Harness();
    const offsets: bigint[] = [];
    for (let i = 0; i < 8; i++) {
      offsets.push(h.next);
      assert.equal(kind(h.send(0, i * 2, 2)), 'append');
    }
    for (let i = 8 - BATCHES_RETAINED; i < 8; i++) {
      const c = h.send(0, i * 2, 2);
      assert.equal(c.kind, 'duplicate');
      if (c.kind === 'duplicate') {
        assert.equal(c.batch.firstOffset, offsets[i]);
        assert.equal(c.batch.lastOffset, (offsets[i] as bigint) + 1n);
        assert.equal(c.batch.firstSeq, i * 2);
      }
    }
    // Batch 2 is older than the cache: Kafka answers OUT_OF_ORDER_SEQUENCE_NUMBER.
    assert.equal(kind(h.send(0, 4, 2)), 'out_of_order_sequence');
    // Same first sequence, different length: not a duplicate, and not in sequence.
    assert.equal(kind(h.send(0, 14, 1)), 'out_of_order_sequence');
    assert.equal(h.next, 16n);
  });

  it('wraps the sequence past Int32 max', () => {
    const h = new Harness();
    assert.equal(kind(h.send(0, SEQUENCE_MAX - 1, 2)), 'append');
    assert.equal(kind(h.send(0, 0, 3)), 'append');
    assert.equal(kind(h.send(0, 3)), 'append');
    assert.equal(kind(h.send(0, SEQUENCE_MAX - 1, 2)), 'duplicate');
    // A batch that itself wraps.
    const w = new Harness();
    assert.equal(kind(w.send(0, SEQUENCE_MAX - 1, 4)), 'append');
    assert.equal(w.s.get(P)?.batches[0]?.lastSeq, 1);
    assert.equal(kind(w.send(0, 2)), 'append');
    assert.equal(kind(w.send(0, SEQUENCE_MAX - 1, 4)), 'duplicate');
  });

  it('rejects negative epochs and sequences as invalid records', () => {
    const h = new Harness();
    assert.equal(kind(h.send(-1, 0)), 'invalid_record');
    assert.equal(kind(h.send(0, -1)), 'invalid_record');
    assert.equal(h.s.size, 0);
  });

  it('keeps producers apart', () => {
    const h = new Harness();
    assert.equal(kind(h.send(0, 0, 1, 1n)), 'append');
    assert.equal(kind(h.send(0, 0, 1, 2n)), 'append');
    assert.equal(kind(h.send(0, 1, 1, 1n)), 'append');
    assert.equal(kind(h.send(0, 0, 1, 2n)), 'duplicate');
    assert.equal(kind(h.send(0, 2, 1, 2n)), 'out_of_order_sequence');
  });
});

describe('producer state: epochs', () => {
  it('refuses an older epoch with INVALID_PRODUCER_EPOCH', () => {
    const h = new Harness();
    h.send(3, 0);
    assert.equal(kind(h.send(2, 1)), 'invalid_producer_epoch');
    assert.equal(kind(h.send(2, 0)), 'invalid_producer_epoch');
  });

  it('a new epoch must start at sequence 0 and clears the duplicate cache', () => {
    const h = new Harness();
    h.send(0, 0, 2);
    h.send(0, 2, 2);
    assert.equal(kind(h.send(1, 4)), 'out_of_order_sequence');
    assert.equal(kind(h.send(1, 0, 2)), 'append');
    assert.equal(h.s.get(P)?.epoch, 1);
    assert.equal(h.s.get(P)?.batches.length, 1);
    assert.equal(kind(h.send(1, 0, 2)), 'duplicate');
    // The old epoch's batches are gone: a retry from it is fenced.
    assert.equal(kind(h.send(0, 2, 2)), 'invalid_producer_epoch');
    assert.equal(kind(h.send(1, 2)), 'append');
  });

  it('a producer whose epoch was set by a control batch starts that epoch at 0', () => {
    const s = new ProducerStateManager();
    s.apply({ producerId: P, epoch: 4, baseSequence: -1, lastOffsetDelta: 0, firstOffset: 0n, maxTimestampMs: 1n, control: true, transactional: true, marker: null }, 1);
    assert.equal(s.get(P)?.batches.length, 0);
    assert.equal(kind(s.check({ producerId: P, epoch: 4, baseSequence: 3, lastOffsetDelta: 0 })), 'out_of_order_sequence');
    assert.equal(kind(s.check({ producerId: P, epoch: 4, baseSequence: 0, lastOffsetDelta: 0 })), 'append');
  });

  it('apply (replicas, recovery) takes a lower epoch without checking', () => {
    const s = new ProducerStateManager();
    s.apply({ producerId: P, epoch: 5, baseSequence: 0, lastOffsetDelta: 0, firstOffset: 0n, maxTimestampMs: 1n, control: false, transactional: false, marker: null }, 1);
    s.apply({ producerId: P, epoch: 2, baseSequence: 9, lastOffsetDelta: 0, firstOffset: 1n, maxTimestampMs: 1n, control: false, transactional: false, marker: null }, 1);
    assert.equal(s.get(P)?.epoch, 2);
    assert.deepEqual(s.get(P)?.batches.map((b) => b.firstSeq), [9]);
  });
});

describe('producer state: expiry', () => {
  it('removes producers with no append for the expiration time, and only those', () => {
    const h = new Harness();
    h.send(0, 0, 1, 1n, 1_000);
    h.send(0, 0, 1, 2n, 5_000);
    assert.equal(h.s.removeExpired(10_999, 10_000), 0);
    assert.equal(h.s.removeExpired(11_000, 10_000), 1);
    assert.equal(h.s.get(1n), undefined);
    assert.notEqual(h.s.get(2n), undefined);
    // Forgotten: it is a new producer again, any sequence goes.
    assert.equal(kind(h.send(0, 77, 1, 1n, 12_000)), 'append');
    h.send(0, 1, 1, 2n, 14_000);
    assert.equal(h.s.removeExpired(21_999, 10_000), 0);
    assert.equal(h.s.removeExpired(24_000, 10_000), 2);
    assert.equal(h.s.size, 0);
  });
});

describe('producer state: forgetting what lies below an offset (promoted mirror topics)', () => {
  it('drops the batches below it, the entry when none is left, and then checks against the rest only', () => {
    const s = new ProducerStateManager();
    const apply = (baseSequence: number, firstOffset: bigint, epoch = 0): void => {
      s.apply({ producerId: P, epoch, baseSequence, lastOffsetDelta: 1, firstOffset, maxTimestampMs: 1n, control: false, transactional: false, marker: null }, 1);
    };
    // Copied from the source: sequences 0-1 and 2-3 at offsets 0-3; promoted at 4.
    apply(0, 0n);
    apply(2, 2n);
    s.forgetBelow(P, 4n);
    assert.equal(s.get(P), undefined, 'nothing of it above the promotion offset: forgotten');
    // After a restart the copied batches come back mixed with this cluster's producer's (same id and epoch).
    apply(0, 0n);
    apply(2, 2n);
    apply(0, 4n);
    assert.equal(kind(s.check({ producerId: P, epoch: 0, baseSequence: 2, lastOffsetDelta: 1 })), 'duplicate', 'without forgetting, the copied 2-3 looks like a retry');
    s.forgetBelow(P, 4n);
    assert.equal(kind(s.check({ producerId: P, epoch: 0, baseSequence: 2, lastOffsetDelta: 1 })), 'append', 'with it, 2-3 is the next batch of this cluster\'s producer');
    assert.equal(kind(s.check({ producerId: P, epoch: 0, baseSequence: 0, lastOffsetDelta: 1 })), 'duplicate', 'its own retry still is one');
  });

  it('keeps an open transaction that started below (it holds the last stable offset)', () => {
    const s = new ProducerStateManager();
    s.apply({ producerId: P, epoch: 0, baseSequence: 0, lastOffsetDelta: 0, firstOffset: 0n, maxTimestampMs: 1n, control: false, transactional: true, marker: null }, 1);
    s.forgetBelow(P, 4n);
    assert.notEqual(s.get(P), undefined);
  });
});
