// Topic to PostgreSQL: the standalone worker's PostgresSinkConnector writing N small records
// (JsonConverter with schemas: {id int32, v string}, insert mode, auto.create, one partition) into a
// table, beside a hand-written loader in the same run: our Consumer reads the same topic, parses the
// same JSON and streams rows into another table with COPY FROM STDIN over `pg` (a submittable query:
// no copy library), one COPY per fetched batch. A real PostgreSQL (Debian's package, started like the
// tests do: test/helpers/postgres.ts) and one broker, all on the same cores. Build first (npm run
// build). One run; prints one JSON line per phase.
//   node bench/connect/postgres-sink.mjs [--records N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin, Consumer, Producer } from '../../dist/src/client/index.js';
import { startStandalone } from '../../dist/src/connect/index.js';
import { startCluster } from '../../dist/src/embedded/cluster.js';
import { startPostgres } from '../../dist/test/helpers/postgres.js';

const args = process.argv.slice(2);
const count = Number(args[args.indexOf('--records') + 1] ?? 1_000_000) || 1_000_000;
const TOPIC = 'bench-pg';
const SCHEMA = { type: 'struct', optional: false, fields: [{ field: 'id', type: 'int32', optional: false }, { field: 'v', type: 'string', optional: false }] };
const dir = mkdtempSync(join(tmpdir(), 'bench-connect-pg-'));
const pg = await startPostgres();
const cluster = await startCluster({ config: { 'num.partitions': 1 }, isolation: 'process' });

async function rowCount(table) {
  const r = await pg.sql(`SELECT count(*)::int AS n FROM ${table}`).catch(() => ({ rows: [{ n: 0 }] }));
  return r.rows[0].n;
}

async function until(table, n, limitMs = 900_000) {
  const deadline = Date.now() + limitMs;
  while ((await rowCount(table)) < n) {
    if (Date.now() > deadline) throw new Error(`${table}: timed out`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** COPY ... FROM STDIN as a pg submittable: sends the chunks on CopyInResponse, settles on ReadyForQuery. */
function copyIn(client, text, chunks) {
  return new Promise((resolve, reject) => {
    let error = null;
    client.query({
      submit: (connection) => connection.query(text),
      handleCopyInResponse: (connection) => {
        for (const c of chunks) connection.sendCopyFromChunk(c);
        connection.endCopyFrom();
      },
      handleCommandComplete: () => undefined,
      handleError: (err) => (error = err),
      handleReadyForQuery: () => (error === null ? resolve() : reject(error)),
    });
  });
}

async function produceAll() {
  const producer = await Producer.connect({ clusterOptions: { bootstrap: cluster.bootstrap } });
  for (let start = 0; start < count; start += 10_000) {
    const batch = [];
    for (let i = start; i < Math.min(count, start + 10_000); i++) batch.push({ topic: TOPIC, key: null, value: Buffer.from(JSON.stringify({ schema: SCHEMA, payload: { id: i, v: `record-${String(i).padStart(9, '0')}` } })) });
    await producer.sendBatch(batch);
  }
  await producer.close();
}

async function copyLoader() {
  const client = await pg.client();
  await client.query('CREATE TABLE copied (id int NOT NULL, v text NOT NULL)');
  const consumer = new Consumer({ bootstrap: cluster.bootstrap });
  consumer.assign([{ topic: TOPIC, partition: 0 }]);
  consumer.seek({ topic: TOPIC, partition: 0 }, 0);
  let done = 0;
  for await (const batch of consumer.batches()) {
    const lines = batch.records.map((r) => {
      const { payload } = JSON.parse(r.value.toString('utf8'));
      return `${payload.id}\t${payload.v}\n`;
    });
    await copyIn(client, 'COPY copied (id, v) FROM STDIN', [Buffer.from(lines.join(''))]);
    done += lines.length;
    if (done >= count) break;
  }
  await consumer.close();
  await client.end();
}

try {
  const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
  await admin.createTopics([{ name: TOPIC, numPartitions: 1 }]);
  await admin.close();
  await produceAll();
  const bytes = Buffer.byteLength(JSON.stringify({ schema: SCHEMA, payload: { id: 0, v: 'record-000000000' } }));

  let t0 = performance.now();
  const worker = await startStandalone(
    { 'bootstrap.servers': cluster.bootstrap, listeners: 'http://127.0.0.1:0', 'offset.storage.file.filename': join(dir, 'offsets'), 'key.converter': 'StringConverter', 'value.converter': 'JsonConverter', 'value.converter.schemas.enable': 'true' },
    [{ name: 'sink', 'connector.class': 'PostgresSink', topics: TOPIC, 'connection.url': pg.url, 'table.name.format': 'sunk', 'auto.create': 'true' }],
    () => undefined,
  );
  await until('sunk', count);
  const sinkMs = performance.now() - t0;
  await worker.close();
  console.log(JSON.stringify({ phase: 'connect-postgres-sink', records: count, bytes, ms: Math.round(sinkMs), recordsPerSec: Math.round((count / sinkMs) * 1000) }));

  t0 = performance.now();
  await copyLoader();
  const copyMs = performance.now() - t0;
  if ((await rowCount('copied')) !== count) throw new Error('the COPY loader lost rows');
  console.log(JSON.stringify({ phase: 'pg-copy-loader', records: count, bytes, ms: Math.round(copyMs), recordsPerSec: Math.round((count / copyMs) * 1000) }));
} finally {
  await cluster.stop();
  await pg.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
