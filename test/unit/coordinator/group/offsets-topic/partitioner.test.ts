import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { javaStringHashCode, kafkaAbs, partitionForGroup } from '../../../../../src/coordinator/group/offsets-topic/partitioner.js';

/** An independent reference: sum of c_i * 31^(n-1-i) over UTF-16 units, mod 2^32, as a signed int32. */
function referenceHash(s: string): number {
  let h = 0n;
  for (let i = 0; i < s.length; i++) h = (h * 31n + BigInt(s.charCodeAt(i))) % (1n << 32n);
  return Number(BigInt.asIntN(32, h));
}

// [group id, Java String.hashCode(), partition of 50]. Hash values worked out by hand
// (h = 31h + c) and, for 'hello', 'Hello World' and 'polygenelubricants', the
// well-known Java results.
const VECTORS: readonly (readonly [string, number, number])[] = [
  ['', 0, 0],
  ['a', 97, 47],
  ['group', 98_629_247, 47],
  ['hello', 99_162_322, 22],
  ['Hello World', -862_545_276, 22],
  // Integer.MIN_VALUE: Utils.abs gives 0; Math.abs would give 2^31 and partition 48.
  ['polygenelubricants', -2_147_483_648, 0],
  ['Aa', 2112, 12],
  ['BB', 2112, 12],
  ['é', 233, 33], // U+00E9, one UTF-16 unit
  ['日本', 835_047, 47], // 0x65E5 * 31 + 0x672C
  ['😀', 1_772_899, 49], // U+1F600 = surrogates 0xD83D, 0xDE00: 55357 * 31 + 56832
  ['my-group', -1_906_497_762, 36],
];

describe('partitionForGroup (Kafka: Utils.abs(groupId.hashCode()) % n)', () => {
  for (const [id, hash, p50] of VECTORS) {
    it(`'${id}' hashes to ${hash}, partition ${p50} of 50`, () => {
      assert.equal(javaStringHashCode(id), hash);
      assert.equal(referenceHash(id), hash);
      assert.equal(partitionForGroup(id, 50), p50);
    });
  }

  it('uses n & 0x7fffffff, not Math.abs', () => {
    assert.equal(kafkaAbs(-2_147_483_648), 0);
    assert.equal(kafkaAbs(-1), 0x7fffffff);
    assert.equal(kafkaAbs(5), 5);
    assert.equal(partitionForGroup('polygenelubricants', 50), 0);
    assert.notEqual(Math.abs(-2_147_483_648) % 50, 0);
  });

  it('agrees with the reference on random strings, including lone surrogates', () => {
    let seed = 12345;
    const next = (): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12345) >>> 0;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      const length = next() % 40;
      let s = '';
      for (let j = 0; j < length; j++) s += String.fromCharCode(next() % 0x10000);
      const n = 1 + (next() % 200);
      assert.equal(javaStringHashCode(s), referenceHash(s));
      assert.equal(partitionForGroup(s, n), (referenceHash(s) & 0x7fffffff) % n);
    }
  });

  it('always lands in [0, n)', () => {
    for (const n of [1, 2, 3, 50, 1000]) {
      for (const [id] of VECTORS) {
        const p = partitionForGroup(id, n);
        assert.ok(p >= 0 && p < n);
      }
    }
  });
});
