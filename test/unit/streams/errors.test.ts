/** Every StreamsErrorCode is documented in src/streams/README.md and docs/streams.md; config errors carry it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KafkaStreams, StreamsBuilder, StreamsErrorCode } from '../../../src/streams/index.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

test('every StreamsErrorCode is documented, and every documented code exists', () => {
  const codes = new Set<string>(Object.values(StreamsErrorCode));
  for (const doc of ['src/streams/README.md', 'docs/streams.md']) {
    const text = readFileSync(`${root}${doc}`, 'utf8');
    for (const code of codes) assert.ok(text.includes(`\`${code}\``), `${code} is not documented in ${doc}`);
    for (const [mentioned] of text.matchAll(/ERR_STREAMS_[A-Z_]+/g)) assert.ok(codes.has(mentioned), `${doc} mentions ${mentioned}, which is not a StreamsErrorCode`);
  }
});

test('KafkaStreams refuses bad configs with ERR_STREAMS_CONFIG and validates the topology', () => {
  const builder = new StreamsBuilder();
  builder.stream('in').to('out');
  const topology = builder.build();
  const bad = (config: object, pattern: RegExp): void =>
    assert.throws(() => new KafkaStreams(topology, config as never), (e: { code?: string; message: string }) => e.code === StreamsErrorCode.CONFIG && pattern.test(e.message));
  bad({ applicationId: 'a b', bootstrapServers: 'x:1' }, /applicationId/);
  bad({ applicationId: 'a', bootstrapServers: '' }, /bootstrapServers/);
  bad({ applicationId: 'a', bootstrapServers: 'x:1', processingGuarantee: 'exactly_once' }, /processingGuarantee/);
  bad({ applicationId: 'a', bootstrapServers: 'x:1', commitIntervalMs: 0 }, /commitIntervalMs/);
  const streams = new KafkaStreams(topology, { applicationId: 'a', bootstrapServers: 'x:1' });
  assert.equal(streams.currentState, 'CREATED');
  assert.throws(() => streams.store('nope'), (e: { code?: string }) => e.code === StreamsErrorCode.STORE);
});
