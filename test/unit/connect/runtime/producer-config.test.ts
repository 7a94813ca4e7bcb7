/**
 * The worker's `producer.*` settings: Java producer config names mapped to
 * our Producer's options, defaults as Kafka Connect's producer, bad values
 * refused with the key named, unknown keys reported (the worker warns).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sourceProducerOptions } from '../../../../src/connect/runtime/producer-config.js';

test('producer.* keys become Producer options', () => {
  const { options, unknown } = sourceProducerOptions({
    'bootstrap.servers': 'x:9092',
    'producer.acks': '1',
    'producer.linger.ms': '20',
    'producer.batch.size': '65536',
    'producer.compression.type': 'zstd',
    'producer.enable.idempotence': 'false',
    'producer.max.in.flight.requests.per.connection': '1',
    'producer.delivery.timeout.ms': '60000',
    'producer.client.dns.lookup': 'use_all_dns_ips',
  });
  assert.deepEqual(
    [options.acks, options.lingerMs, options.batchSize, options.compression, options.idempotent, options.maxInFlight, options.deliveryTimeoutMs],
    [1, 20, 65536, 'zstd', false, 1, 60000],
  );
  assert.deepEqual(unknown, ['producer.client.dns.lookup']);
});

test('without producer.* keys: acks=all, linger 5 ms, no compression, idempotence left to the Producer', () => {
  const { options, unknown } = sourceProducerOptions({ 'bootstrap.servers': 'x:9092' });
  assert.equal(options.acks, -1);
  assert.equal(options.lingerMs, 5);
  assert.equal(options.compression, 'none');
  assert.equal('idempotent' in options, false);
  assert.deepEqual(unknown, []);
});

test('bad producer values are refused, naming the key', () => {
  assert.throws(() => sourceProducerOptions({ 'producer.acks': '2' }), /acks/);
  assert.throws(() => sourceProducerOptions({ 'producer.compression.type': 'brotli' }), /compression.type/);
  assert.throws(() => sourceProducerOptions({ 'producer.linger.ms': 'soon' }), /linger.ms/);
});
