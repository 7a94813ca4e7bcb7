/**
 * ListOffsets v0, sent as raw bytes the way sarama-era consumer-lag monitors
 * send it, against an in-process broker: the answer's oldStyleOffsets give
 * the partition's end offset (latest) and start offset (earliest); unknown
 * topics get UNKNOWN_TOPIC_OR_PARTITION; an empty partition answers [0]; ApiVersions advertises v0; the
 * connection stays open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Producer, Serializers } from '../../../src/client/producer.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { listOffsetsV0Request, parseListOffsetsV0Response, probeApiVersions, RawConnection } from '../../helpers/raw-kafka.js';
import { startInProcessBroker } from '../../helpers/in-process-broker.js';

test('ListOffsets v0 answers oldStyleOffsets for latest and earliest', { timeout: 30_000 }, async (t) => {
  const broker = await startInProcessBroker({ 'num.partitions': '2' });
  t.after(() => broker.stop());
  const producer = await Producer.connect<string, string>({ clusterOptions: { bootstrap: `127.0.0.1:${broker.port}` }, valueSerializer: Serializers.string, partitioner: 'round-robin' });
  await producer.sendBatch(Array.from({ length: 7 }, (_, i) => ({ topic: 'lag', partition: 0, value: `v${i}` })));
  await producer.close();

  const versions = await probeApiVersions(broker.port);
  assert.equal(versions.apiKeys.get(2)?.minVersion, 0, 'ApiVersions advertises ListOffsets v0');

  const conn = await RawConnection.connect(broker.port);
  t.after(() => conn.close());
  const response = parseListOffsetsV0Response(
    await conn.request(
      listOffsetsV0Request(41, [
        { topic: 'lag', partition: 0, timestamp: -1n, maxNumOffsets: 1 },
        { topic: 'lag', partition: 1, timestamp: -1n, maxNumOffsets: 1 },
        { topic: 'lag', partition: 0, timestamp: -2n, maxNumOffsets: 1 },
      ]),
    ),
  );
  assert.equal(response.correlationId, 41);
  assert.deepEqual(response.partitions, [
    { topic: 'lag', partition: 0, errorCode: ErrorCode.NONE, oldStyleOffsets: [7n] },
    { topic: 'lag', partition: 1, errorCode: ErrorCode.NONE, oldStyleOffsets: [0n] },
    { topic: 'lag', partition: 0, errorCode: ErrorCode.NONE, oldStyleOffsets: [0n] },
  ]);

  // Several offsets: the log end, then the segment base (one segment).
  const many = parseListOffsetsV0Response(await conn.request(listOffsetsV0Request(42, [{ topic: 'lag', partition: 0, timestamp: -1n, maxNumOffsets: 10 }])));
  assert.deepEqual(many.partitions[0]?.oldStyleOffsets, [7n, 0n]);
  const unknown = parseListOffsetsV0Response(await conn.request(listOffsetsV0Request(43, [{ topic: 'no-such-topic', partition: 0, timestamp: -1n, maxNumOffsets: 1 }])));
  assert.equal(unknown.partitions[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal(conn.isClosed, false);
});
