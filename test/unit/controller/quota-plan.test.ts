// AlterClientQuotas rules (src/controller/quota-plan.ts) and the image's
// ClientQuotas (records in, values out, snapshot round trip, removals).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MetadataImage } from '../../../src/controller/metadata/image.js';
import { ClientQuotas } from '../../../src/controller/metadata/client-quotas.js';
import { planAlterClientQuotas } from '../../../src/controller/quota-plan.js';
import { filterClientQuotas, quotaFilterProblem } from '../../../src/security/quota/describe-filter.js';

const user = (name: string | null) => [{ entityType: 'user', entityName: name }];

describe('planAlterClientQuotas', () => {
  it('valid entries become ClientQuotaRecords; invalid ones fail alone with Kafka messages', () => {
    const image = new MetadataImage('c');
    const plan = planAlterClientQuotas(image, [
      { entity: user('alice'), ops: [{ key: 'producer_byte_rate', value: 100, remove: false }] },
      { entity: [], ops: [] },
      { entity: [{ entityType: 'group', entityName: 'g' }], ops: [] },
      { entity: [...user('a'), ...user('b')], ops: [] },
      { entity: [{ entityType: 'ip', entityName: '1.2.3.4' }, ...user('a')], ops: [] },
      { entity: [{ entityType: 'ip', entityName: 'host.example' }], ops: [] },
      { entity: [{ entityType: 'ip', entityName: null }], ops: [{ key: 'producer_byte_rate', value: 1, remove: false }] },
      { entity: user(null), ops: [{ key: 'consumer_byte_rate', value: 0.5, remove: false }] },
      { entity: [{ entityType: 'ip', entityName: null }], ops: [{ key: 'connection_creation_rate', value: 2.5, remove: false }] },
      { entity: user('x'), ops: [{ key: 'request_percentage', value: 1, remove: false }, { key: 'request_percentage', value: 2, remove: false }] },
      { entity: user('x'), ops: [{ key: 'request_percentage', value: Number.NaN, remove: false }] },
      { entity: [{ entityType: 'client-id', entityName: 'c' }, ...user(null)], ops: [{ key: 'request_percentage', value: 12.5, remove: false }] },
    ], false);
    assert.deepEqual(plan.results.map((r) => r.errorCode), [0, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 0]);
    assert.match(plan.results[2]?.errorMessage ?? '', /Unhandled client quota entity type: group/);
    assert.match(plan.results[4]?.errorMessage ?? '', /IP entity should not be used with user\/client ID entity/);
    assert.match(plan.results[6]?.errorMessage ?? '', /Invalid configuration key producer_byte_rate/);
    assert.match(plan.results[7]?.errorMessage ?? '', /must be a Long value/);
    assert.match(plan.results[8]?.errorMessage ?? '', /must be an Integer value/);
    assert.equal(plan.records.length, 2);
    assert.deepEqual(plan.records[0], { type: 'ClientQuotaRecord', data: { entity: user('alice'), key: 'producer_byte_rate', value: 100, remove: false } });
  });

  it('validateOnly writes nothing; removing a key the entity lacks writes nothing', () => {
    const image = new MetadataImage('c');
    assert.equal(planAlterClientQuotas(image, [{ entity: user('a'), ops: [{ key: 'producer_byte_rate', value: 1, remove: false }] }], true).records.length, 0);
    const removal = planAlterClientQuotas(image, [{ entity: user('a'), ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }], false);
    assert.equal(removal.results[0]?.errorCode, 0);
    assert.equal(removal.records.length, 0);
  });
});

describe('ClientQuotas', () => {
  it('applies sets and removals; entity component order does not matter; snapshots round-trip', () => {
    const q = new ClientQuotas();
    q.apply({ type: 'ClientQuotaRecord', data: { entity: [{ entityType: 'user', entityName: 'a' }, { entityType: 'client-id', entityName: 'c' }], key: 'request_percentage', value: 5, remove: false } });
    q.apply({ type: 'ClientQuotaRecord', data: { entity: user(null), key: 'producer_byte_rate', value: 9, remove: false } });
    assert.equal(q.value([{ entityType: 'client-id', entityName: 'c' }, { entityType: 'user', entityName: 'a' }], 'request_percentage'), 5);
    const copy = new ClientQuotas();
    for (const r of q.toRecords()) if (r.type === 'ClientQuotaRecord') copy.apply(r);
    assert.deepEqual(copy.entries(), q.entries());
    assert.equal(new ClientQuotas().removalsTowards(q).length, 0);
    assert.equal(q.removalsTowards(new ClientQuotas()).length, 2);
    q.apply({ type: 'ClientQuotaRecord', data: { entity: user(null), key: 'producer_byte_rate', value: 0, remove: true } });
    assert.equal(q.size, 1);
  });
});

describe('DescribeClientQuotas filters', () => {
  const q = new ClientQuotas();
  for (const entity of [user('alice'), user(null), [...user('alice'), { entityType: 'client-id', entityName: 'c' }], [{ entityType: 'client-id', entityName: null }]]) {
    q.apply({ type: 'ClientQuotaRecord', data: { entity, key: 'request_percentage', value: 1, remove: false } });
  }
  it('exact, default, specified, strict', () => {
    assert.equal(filterClientQuotas(q, [], false).length, 4);
    assert.equal(filterClientQuotas(q, [{ entityType: 'user', matchType: 0, match: 'alice' }], false).length, 2);
    assert.equal(filterClientQuotas(q, [{ entityType: 'user', matchType: 0, match: 'alice' }], true).length, 1);
    assert.equal(filterClientQuotas(q, [{ entityType: 'user', matchType: 1, match: null }], false).length, 1);
    assert.equal(filterClientQuotas(q, [{ entityType: 'user', matchType: 2, match: null }], false).length, 2);
    assert.equal(filterClientQuotas(q, [{ entityType: 'client-id', matchType: 2, match: null }], true).length, 0);
  });
  it("refuses Kafka's invalid filters", () => {
    assert.match(quotaFilterProblem([{ entityType: 'user', matchType: 0, match: null }]) ?? '', /MATCH_TYPE_EXACT/);
    assert.match(quotaFilterProblem([{ entityType: 'user', matchType: 1, match: 'x' }]) ?? '', /MATCH_TYPE_DEFAULT/);
    assert.match(quotaFilterProblem([{ entityType: 'user', matchType: 2, match: null }, { entityType: 'user', matchType: 2, match: null }]) ?? '', /more than once/);
    assert.match(quotaFilterProblem([{ entityType: 'nope', matchType: 2, match: null }]) ?? '', /Unknown entity type/);
    assert.equal(quotaFilterProblem([{ entityType: 'client-id', matchType: 2, match: null }]), null);
  });
});
