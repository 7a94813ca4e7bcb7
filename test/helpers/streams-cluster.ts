/**
 * Set-up shared by the Streams integration tests: one embedded cluster per
 * test file (groups rebalance without the initial delay, so a KafkaStreams
 * instance starts in about a second) with an Admin on it, and records with
 * String keys and values written and read back.
 */
import { after, before } from 'node:test';
import { startCluster, type EmbeddedCluster } from '../../src/embedded/cluster.js';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { Serdes } from '../../src/streams/index.js';

const S = Serdes.String();

/** How long a read waits for what it was asked for before returning what it has. */
const READ_WAIT_MS = 30_000;

/** The cluster and Admin of a test file; valid inside its tests. */
export interface StreamsCluster {
  readonly cluster: EmbeddedCluster;
  readonly admin: Admin;
  readonly bootstrap: string;
}

/**
 * Starts a cluster before the file's tests and stops it after them (with
 * `config` added to the broker config). `onStop` runs after the cluster stopped.
 */
export function useStreamsCluster(config: Readonly<Record<string, string | number | boolean>> = {}, onStop: () => void = () => {}): StreamsCluster {
  let cluster: EmbeddedCluster | null = null;
  let admin: Admin | null = null;
  before(async () => {
    cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0, ...config } });
    admin = await Admin.connect({ bootstrap: cluster.bootstrap });
  });
  after(async () => {
    await admin?.close();
    await cluster?.stop();
    onStop();
  });
  const started = <T>(x: T | null): T => {
    if (x === null) throw new Error('the Streams test cluster is used outside its tests');
    return x;
  };
  return {
    get cluster() {
      return started(cluster);
    },
    get admin() {
      return started(admin);
    },
    get bootstrap() {
      return started(cluster).bootstrap;
    },
  };
}

/** Writes `[key, value (null: a tombstone), timestamp?]` records to `topic` in order, UTF-8 encoded. */
export async function produceStrings(bootstrap: string, topic: string, records: readonly [string, string | null, number?][]): Promise<void> {
  const producer = await Producer.connect<Buffer | null, Buffer | null>({ clusterOptions: { bootstrap } });
  try {
    for (const [key, value, timestamp] of records) {
      await producer.send({ topic, key: Buffer.from(key), value: value === null ? null : Buffer.from(value), ...(timestamp !== undefined ? { timestamp: BigInt(timestamp) } : {}) });
    }
  } finally {
    await producer.close();
  }
}

/**
 * Reads every partition of `topic` from the start into a map (last value per
 * key, null for a tombstone) until `count` records came or `done(map)` holds,
 * or READ_WAIT_MS passed; returns what it has then.
 */
export async function readStringMap(
  sc: StreamsCluster,
  topic: string,
  until: { count?: number; done?: (got: Map<string, string | null>) => boolean },
): Promise<Map<string, string | null>> {
  const consumer = new Consumer<Buffer | null, Buffer | null>({ bootstrap: sc.bootstrap, autoOffsetReset: 'earliest' });
  const parts = (await sc.admin.describeTopics([topic]))[0]?.partitions.length ?? 1;
  consumer.assign(Array.from({ length: parts }, (_, partition) => ({ topic, partition })));
  const got = new Map<string, string | null>();
  const deadline = Date.now() + READ_WAIT_MS;
  let n = 0;
  try {
    for await (const batch of consumer.batches()) {
      for (const r of batch.records) got.set(S.deserialize(topic, r.key) as string, S.deserialize(topic, r.value)), n++;
      if ((until.count !== undefined && n >= until.count) || until.done?.(got) === true || Date.now() > deadline) break;
    }
  } finally {
    await consumer.close();
  }
  return got;
}
