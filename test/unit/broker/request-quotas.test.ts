// RequestQuotas (src/broker/request-quotas.ts): what each API records and
// how a throttled response looks (KIP-219), with a hand-driven clock and
// quotas applied as metadata records.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ALLOW_ALL } from '../../../src/security/authorizer/request-authorizer.js';
import { ClientQuotas } from '../../../src/controller/metadata/client-quotas.js';
import { ClientQuotaManager } from '../../../src/security/quota/client-quota-manager.js';
import { UsageTracker } from '../../../src/security/quota/usage.js';
import { RequestQuotas } from '../../../src/broker/request-quotas.js';
import type { MetadataService } from '../../../src/broker/metadata-service.js';
import type { RequestContext } from '../../../src/broker/request-context.js';
import type { BrokerServices } from '../../../src/broker/services.js';

const WINDOWS = { samples: 11, windowMs: 1000 };

function setup(): { quotas: RequestQuotas; store: ClientQuotas; clock: { now: number } } {
  const store = new ClientQuotas();
  const clock = { now: 0 };
  const nowMs = (): number => clock.now;
  const metadata = { topic: () => undefined, topicNameById: () => undefined } as unknown as MetadataService;
  const manager = new ClientQuotaManager({ lookup: (e, k) => store.value(e, k), windows: WINDOWS, nowMs, anyQuota: () => store.size > 0 });
  return { quotas: new RequestQuotas(manager, new UsageTracker(WINDOWS, nowMs), metadata), store, clock };
}

function ctx(apiKey: number, principal = 'User:alice', clientId = 'app'): RequestContext {
  return {
    apiKey, apiVersion: 9, correlationId: 1, clientId, principal, listenerName: 'PLAINTEXT', connectionId: 'c', clientAddress: '127.0.0.1:1',
    receivedAtMs: 0, authz: ALLOW_ALL, services: {} as BrokerServices, logger: pino({ level: 'silent' }), afterResponseWritten: () => {},
  };
}

function fetchResponse(bytes: number): { throttleTimeMs: number; errorCode: number; sessionId: number; responses: unknown[] } {
  return { throttleTimeMs: 0, errorCode: 0, sessionId: 7, responses: [{ topic: 't', partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 10n, records: Buffer.alloc(bytes) }] }] };
}

describe('RequestQuotas', () => {
  it('a fetch over consumer_byte_rate is answered empty with throttle_time_ms, same session; its bytes are not counted', () => {
    const { quotas, store } = setup();
    store.apply({ type: 'ClientQuotaRecord', data: { entity: [{ entityType: 'user', entityName: 'alice' }], key: 'consumer_byte_rate', value: 1000, remove: false } });
    const within = quotas.end(quotas.begin(ctx(1), { replicaId: -1 }, 100) as never, fetchResponse(5_000), 0);
    assert.equal(within.throttleMs, 0);
    assert.equal((within.result as { responses: unknown[] }).responses.length, 1);
    const over = quotas.end(quotas.begin(ctx(1), { replicaId: -1 }, 100) as never, fetchResponse(50_000), 0);
    assert.ok(over.throttleMs > 0);
    assert.deepEqual(over.result, { throttleTimeMs: over.throttleMs, errorCode: 0, sessionId: 7, responses: [] });
    assert.equal(quotas.usage.usageOf('User:alice')?.fetchBytesPerSec, 500, 'only the 5 000 bytes sent count (over 10 s)');
  });

  it('follower fetches and exempt APIs are not tracked', () => {
    const { quotas } = setup();
    assert.equal(quotas.begin(ctx(1), { replicaId: 2 }, 100), null);
    assert.equal(quotas.begin(ctx(18), {}, 100), null);
    assert.equal(quotas.begin(ctx(36), {}, 100), null);
  });

  it('produce over producer_byte_rate: the response keeps its results and carries the throttle; usage is recorded without quotas too', () => {
    const { quotas, store } = setup();
    const produced = { throttleTimeMs: 0, responses: [{ name: 't', partitionResponses: [{ index: 0, errorCode: 0 }] }] };
    assert.equal(quotas.end(quotas.begin(ctx(0), {}, 20_000) as never, produced, 0).throttleMs, 0, 'no quota');
    assert.equal(quotas.usage.usageOf('User:alice')?.produceBytesPerSec, 2_000);
    store.apply({ type: 'ClientQuotaRecord', data: { entity: [{ entityType: 'client-id', entityName: null }], key: 'producer_byte_rate', value: 1000, remove: false } });
    const out = quotas.end(quotas.begin(ctx(0), {}, 20_000) as never, produced, 0);
    assert.equal(out.throttleMs, 10_000, '20 000 B over 10 s = 2000 B/s, twice the quota');
    assert.deepEqual(out.result, { ...produced, throttleTimeMs: 10_000 });
    assert.equal(quotas.clientQuotas.throttleStats().get('produce')?.throttled, 1);
  });

  it('request_percentage counts handler time; CreateTopics counts partitions against controller_mutation_rate', () => {
    const { quotas, store } = setup();
    store.apply({ type: 'ClientQuotaRecord', data: { entity: [{ entityType: 'user', entityName: null }], key: 'request_percentage', value: 1, remove: false } });
    store.apply({ type: 'ClientQuotaRecord', data: { entity: [{ entityType: 'user', entityName: null }], key: 'controller_mutation_rate', value: 1, remove: false } });
    const busy = quotas.end(quotas.begin(ctx(3), {}, 50) as never, { throttleTimeMs: 0 }, 500);
    assert.equal(busy.throttleMs, 1000, '500 ms of handler time in 10 s is 5 % against 1 %: capped at one window');
    const create = { topics: [{ name: 'a', numPartitions: 30, assignments: [] }], validateOnly: false };
    const created = quotas.end(quotas.begin(ctx(19, 'User:bob'), create, 50) as never, { throttleTimeMs: 0, topics: [] }, 0);
    assert.equal(created.throttleMs, 20_000, '30 partitions over 10 s = 3/s against 1/s');
    const dry = quotas.begin(ctx(19, 'User:carol'), { ...create, validateOnly: true }, 50);
    assert.equal(quotas.end(dry as never, { throttleTimeMs: 0, topics: [] }, 0).throttleMs, 0, 'validateOnly mutates nothing');
  });
});
