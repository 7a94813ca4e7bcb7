/** Shared helpers for the controller tests: records, brokers, a booted controller on a memory fs. */
import { MemoryFileSystem } from '../../../src/storage/index.js';
import { ManualClock } from '../../../src/util/clock.js';
import { SeededRandom } from '../../../src/util/random.js';
import { bootController, type BootControllerOptions, type BootedController } from '../../../src/controller/boot.js';
import type { MetadataDelta } from '../../../src/controller/metadata/delta.js';
import type { MetadataRecord } from '../../../src/controller/metadata/records.js';
import type { NewTopic } from '../../../src/controller/types.js';
import type { AppendedRange, CommitListener, MetadataLog, MetadataLogError } from '../../../src/controller/metadata-log.js';

export const DATA_DIR = '/data';

export function registerBroker(brokerId: number, brokerEpoch: bigint, rack: string | null = null, fenced = false): MetadataRecord {
  return {
    type: 'RegisterBrokerRecord',
    data: {
      brokerId,
      incarnationId: 'AAAAAAAAAAAAAAAAAAAAAg',
      brokerEpoch,
      endPoints: [{ name: 'PLAINTEXT', host: `b${brokerId}`, port: 9092, securityProtocol: 0 }],
      features: [],
      rack,
      fenced,
      inControlledShutdown: false,
    },
  };
}

export function newTopic(name: string, overrides: Partial<NewTopic> = {}): NewTopic {
  return { name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [], ...overrides };
}

export interface Harness {
  fs: MemoryFileSystem;
  clock: ManualClock;
  booted: BootedController;
  deltas: MetadataDelta[];
}

/** Boots a controller on a memory fs; `fs` lets a test restart on the same "disk". */
export async function boot(opts: Partial<BootControllerOptions> & { fs?: MemoryFileSystem; seed?: number } = {}): Promise<Harness> {
  const fs = opts.fs ?? new MemoryFileSystem();
  const clock = new ManualClock();
  const deltas: MetadataDelta[] = [];
  const booted = await bootController({
    dataDir: DATA_DIR,
    fs,
    clock,
    random: new SeededRandom(opts.seed ?? 42),
    nodeId: 1,
    numPartitionsDefault: 1,
    replicationFactorDefault: 1,
    onDelta: (d) => deltas.push(d),
    onListenerError: (err) => {
      throw err;
    },
    advertisedListeners: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092 }],
    ...opts,
  });
  return { fs, clock, booted, deltas };
}

/** An in-memory MetadataLog for controller tests: commits at once (one offset per record), or fails like a deposed Raft leader. */
export class MemoryMetadataLog implements MetadataLog {
  private listener: CommitListener | null = null;
  private next = 0n;
  appends: MetadataRecord[][] = [];
  failWith: MetadataLogError | null = null;
  async start(listener: CommitListener): Promise<void> {
    this.listener = listener;
  }
  async append(records: readonly MetadataRecord[]): Promise<AppendedRange> {
    if (this.failWith) throw this.failWith;
    const range = { baseOffset: this.next, lastOffset: this.next + BigInt(records.length - 1) };
    this.next = range.lastOffset + 1n;
    this.appends.push([...records]);
    this.listener?.({ ...range, epoch: 0, timestampMs: 0n, records });
    return range;
  }
  get highWatermark(): bigint {
    return this.next;
  }
  get endOffset(): bigint {
    return this.next;
  }
  async close(): Promise<void> {}
}
