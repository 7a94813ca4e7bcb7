import { test } from 'node:test';
import assert from 'node:assert/strict';
import { array, field, request, struct, type Infer, type Input } from '../../../src/protocol/schema.js';
import { decode, encode } from '../../../src/protocol/codec.js';
import { DecodeError } from '../../../src/protocol/primitives/decode-error.js';

const Sample = request(99, { versions: '0-3', flexible: '3+' }, [
  field('groupId', 'string'),
  field('generationId', 'int32'),
  field('instance', 'nullableString', { versions: '1+' }),
  field('topics', array(struct([field('name', 'string'), field('partitions', array('int32')), field('offset', 'int64', { default: -1n })])), {
    nullableVersions: '2+',
  }),
  field('note', 'string', { versions: '3+', tag: 0, default: '' }),
]);
type Sample = Infer<typeof Sample>;

test('a schema compiles per version and round-trips', () => {
  const value: Input<typeof Sample> = {
    groupId: 'g',
    generationId: 7,
    instance: 'i-1',
    topics: [{ name: 't', partitions: [0, 1, 2] }],
    note: 'hello',
  };
  for (let v = 0; v <= 3; v++) {
    const bytes = encode(Sample, v, value);
    const back: Sample = decode(Sample, v, bytes);
    assert.equal(back.groupId, 'g');
    assert.equal(back.generationId, 7);
    assert.equal(back.instance, v >= 1 ? 'i-1' : null);
    assert.deepEqual(back.topics, [{ name: 't', partitions: [0, 1, 2], offset: -1n }]);
    assert.equal(back.note, v >= 3 ? 'hello' : '');
  }
});

test('classic and compact encodings match the spec bytes', () => {
  const v0 = encode(Sample, 0, { groupId: 'ab', generationId: 1, topics: [] });
  assert.deepEqual([...v0], [0, 2, 0x61, 0x62, 0, 0, 0, 1, 0, 0, 0, 0]);
  const v3 = encode(Sample, 3, { groupId: 'ab', generationId: 1, instance: null, topics: null });
  // compact string len+1, int32, null compact string (0), null compact array (0), empty tag buffer
  assert.deepEqual([...v3], [3, 0x61, 0x62, 0, 0, 0, 1, 0, 0, 0]);
});

test('unknown tagged fields are skipped', () => {
  const base = encode(Sample, 3, { groupId: 'ab', generationId: 1, instance: null, topics: null });
  const withUnknown = Buffer.concat([base.subarray(0, base.length - 1), Buffer.from([1, 9, 2, 0xaa, 0xbb])]);
  const back = decode(Sample, 3, withUnknown);
  assert.equal(back.groupId, 'ab');
});

test('truncated input gives DecodeError at every cut', () => {
  const bytes = encode(Sample, 3, { groupId: 'abc', generationId: 1, instance: 'x', topics: [{ name: 't', partitions: [1] }], note: 'n' });
  for (let cut = 0; cut < bytes.length; cut++) {
    assert.throws(() => decode(Sample, 3, bytes.subarray(0, cut)), DecodeError);
  }
});
