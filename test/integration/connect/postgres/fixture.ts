/**
 * What the PostgreSQL connector tests share: one PostgreSQL server and one
 * broker per test file, a standalone worker per connector with its own
 * offsets file, JSON converters with schemas (Kafka's envelopes), and the
 * REST calls the tests make.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type EmbeddedCluster } from '../../../../src/embedded/cluster.js';
import { startStandalone, type ConnectWorkerHandle } from '../../../../src/connect/index.js';
import { startPostgres, type PostgresServer } from '../../../helpers/postgres.js';

export interface PgConnectFixture {
  pg: PostgresServer;
  cluster: EmbeddedCluster;
  dir: string;
  /** A standalone worker running these connectors, offsets in `<dir>/<offsetsName>.json`. */
  worker(connectors: Record<string, string>[], offsetsName: string, extra?: Record<string, string>): Promise<ConnectWorkerHandle>;
  close(): Promise<void>;
}

export async function pgConnectFixture(): Promise<PgConnectFixture> {
  const pg = await startPostgres();
  const cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 } });
  const dir = mkdtempSync(join(tmpdir(), 'connect-pg-'));
  return {
    pg,
    cluster,
    dir,
    worker: (connectors, offsetsName, extra = {}) =>
      startStandalone(
        {
          'bootstrap.servers': cluster.bootstrap,
          listeners: 'http://127.0.0.1:0',
          'offset.storage.file.filename': join(dir, `${offsetsName}.json`),
          'offset.flush.interval.ms': '200',
          'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
          'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
          'key.converter.schemas.enable': 'true',
          'value.converter.schemas.enable': 'true',
          ...extra,
        },
        connectors,
        () => undefined,
      ),
    close: async () => {
      await cluster.stop();
      await pg.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A JSON REST call to a worker: status and parsed body. */
export async function rest<T = unknown>(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(url + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as T };
}

/** A task's state and trace from the status endpoint. */
export async function taskStatus(url: string, connector: string): Promise<{ state: string; trace?: string } | undefined> {
  const s = await rest<{ tasks?: { state: string; trace?: string }[] } | null>(url, 'GET', `/connectors/${connector}/status`);
  return s.body?.tasks?.[0];
}
