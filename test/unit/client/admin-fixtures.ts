/**
 * A fake two-broker cluster for the admin unit tests: brokers 1 and 2 on
 * their own ports, metadata listing both (controller 1) and the topics the
 * test gives (partition p led by `leaders[p]`). Every request is recorded
 * with the node that received it.
 */
import { Admin } from '../../../src/client/admin.js';
import { FAKE_API_VERSIONS, FakeBroker, withApiVersions, type FakeReply, type FakeRequest } from './fake-broker.js';

export interface FakeTopicSpec {
  /** Leader node of each partition (index = partition). */
  leaders: number[];
}

export interface Recorded {
  nodeId: number;
  req: FakeRequest;
}

export type AdminHandler = (req: FakeRequest, nodeId: number) => FakeReply;

/** Admin APIs the fakes advertise on top of FAKE_API_VERSIONS (each at its newest version). */
export const ADMIN_API_VERSIONS = [
  ...FAKE_API_VERSIONS,
  { apiKey: 21, minVersion: 0, maxVersion: 2 },
  { apiKey: 33, minVersion: 0, maxVersion: 2 },
  { apiKey: 35, minVersion: 0, maxVersion: 4 },
  { apiKey: 43, minVersion: 0, maxVersion: 2 },
  { apiKey: 44, minVersion: 0, maxVersion: 1 },
  { apiKey: 45, minVersion: 0, maxVersion: 0 },
  { apiKey: 46, minVersion: 0, maxVersion: 0 },
  { apiKey: 60, minVersion: 0, maxVersion: 1 },
];

export interface FakeCluster {
  admin: Admin;
  brokers: FakeBroker[];
  requests: Recorded[];
  /** Topics as the metadata answers them; tests may change leaders. */
  topics: Map<string, FakeTopicSpec>;
  stop: () => Promise<void>;
}

export async function startFakeCluster(
  handler: AdminHandler,
  options: { topics?: Record<string, FakeTopicSpec>; apiVersions?: typeof ADMIN_API_VERSIONS } = {},
): Promise<FakeCluster> {
  const topics = new Map(Object.entries(options.topics ?? {}));
  const requests: Recorded[] = [];
  const ports = new Map<number, number>();
  const make = (nodeId: number): Promise<FakeBroker> =>
    FakeBroker.start(
      withApiVersions((req) => {
        requests.push({ nodeId, req });
        if (req.apiKey === 3) return metadataReply(req, ports, topics);
        return handler(req, nodeId);
      }, options.apiVersions ?? ADMIN_API_VERSIONS),
    );
  const brokers = [await make(1), await make(2)];
  ports.set(1, brokers[0]?.port ?? 0);
  ports.set(2, brokers[1]?.port ?? 0);
  const admin = await Admin.connect({ bootstrap: `127.0.0.1:${ports.get(1)}`, retryBackoffMs: 1 });
  return {
    admin,
    brokers,
    requests,
    topics,
    stop: async () => {
      await admin.close();
      for (const b of brokers) await b.stop();
    },
  };
}

function metadataReply(req: FakeRequest, ports: ReadonlyMap<number, number>, topics: ReadonlyMap<string, FakeTopicSpec>): FakeReply {
  const asked = req.body.topics as { name: string }[] | null;
  const names = asked === null ? [...topics.keys()] : asked.map((t) => t.name);
  return {
    body: {
      throttleTimeMs: 0,
      brokers: [...ports].map(([nodeId, port]) => ({ nodeId, host: '127.0.0.1', port, rack: nodeId === 2 ? 'r2' : null })),
      clusterId: 'fake-cluster',
      controllerId: 1,
      topics: names.map((name) => {
        const t = topics.get(name);
        if (t === undefined) return { errorCode: 3, name, isInternal: false, partitions: [] };
        return {
          errorCode: 0,
          name,
          isInternal: false,
          partitions: t.leaders.map((leaderId, partitionIndex) => ({
            errorCode: 0,
            partitionIndex,
            leaderId,
            leaderEpoch: 0,
            replicaNodes: [leaderId],
            isrNodes: [leaderId],
            offlineReplicas: [],
          })),
        };
      }),
    },
  };
}

/** The requests of one API key, in arrival order. */
export function requestsOf(requests: readonly Recorded[], apiKey: number): Recorded[] {
  return requests.filter((r) => r.req.apiKey === apiKey);
}
