/**
 * A custom assignor with assignment userData against a real broker
 * (startCluster): the leader's `assignWithUserData` result reaches each
 * member's `onAssignment` (partitions and userData) before
 * onPartitionsAssigned, subscription userData reaches the leader, and
 * `enforceRebalance()` makes a member rejoin with fresh userData.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type EmbeddedCluster } from '../../src/embedded/cluster.js';
import { Admin, Consumer, type Assignor, type MemberAssignment } from '../../src/client/index.js';

let cluster: EmbeddedCluster;

before(async () => {
  cluster = await startCluster({ config: { 'group.initial.rebalance.delay.ms': 0 } });
});
after(async () => {
  await cluster.stop();
});

/** Deals partitions round robin; each member's userData echoes what the leader read from its subscription. */
function echoAssignor(label: () => string, seen: { userData: string; partitions: number[]; beforeListener: boolean }[], assignedCalls: () => number): Assignor {
  const assign = (members: Parameters<Assignor['assign']>[0], counts: ReadonlyMap<string, number>): Map<string, MemberAssignment> => {
    const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
    const out = new Map<string, MemberAssignment>();
    const topic = [...counts.keys()][0] as string;
    sorted.forEach((m, i) => {
      const partitions = Array.from({ length: counts.get(topic) ?? 0 }, (_, p) => p).filter((p) => p % sorted.length === i);
      out.set(m.memberId, { partitions: [{ topic, partitions }], userData: Buffer.from(`you said ${m.subscription.userData?.toString()}`) });
    });
    return out;
  };
  return {
    name: 'echo',
    protocol: 'eager',
    userData: () => Buffer.from(label()),
    assign: (members, counts) => new Map([...assign(members, counts)].map(([id, a]) => [id, a.partitions])),
    assignWithUserData: assign,
    onAssignment: (a) => void seen.push({ userData: a.userData?.toString() ?? '', partitions: a.partitions.flatMap((t) => t.partitions), beforeListener: assignedCalls() === seen.length }),
  };
}

test('assignment userData reaches onAssignment on every member; enforceRebalance sends fresh subscription userData', async () => {
  const topic = `echo-${Date.now()}`;
  const admin = await Admin.connect({ bootstrap: cluster.bootstrap });
  await admin.createTopics([{ name: topic, numPartitions: 4 }]);
  await admin.close();
  const make = (name: string): { consumer: Consumer; seen: { userData: string; partitions: number[]; beforeListener: boolean }[]; setLabel: (l: string) => void } => {
    let label = `${name}-1`;
    let assigned = 0;
    const seen: { userData: string; partitions: number[]; beforeListener: boolean }[] = [];
    const consumer = new Consumer({
      bootstrap: cluster.bootstrap,
      groupId: `echo-group-${topic}`,
      assignors: [echoAssignor(() => label, seen, () => assigned)],
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 200,
      listeners: { onPartitionsAssigned: () => void assigned++ },
    });
    return { consumer, seen, setLabel: (l) => void (label = l) };
  };
  const a = make('a');
  const b = make('b');
  try {
    await a.consumer.subscribe([topic]);
    assert.deepEqual(a.seen.at(-1), { userData: 'you said a-1', partitions: [0, 1, 2, 3], beforeListener: true });
    const loopA = (async () => {
      for await (const _ of a.consumer.batches());
    })();
    await b.consumer.subscribe([topic]);
    const deadline = Date.now() + 20_000;
    while (a.seen.at(-1)?.partitions.length !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(b.seen.at(-1)?.userData, 'you said b-1');
    assert.equal(a.seen.at(-1)?.userData, 'you said a-1');
    assert.deepEqual([...(a.seen.at(-1)?.partitions ?? []), ...(b.seen.at(-1)?.partitions ?? [])].sort(), [0, 1, 2, 3]);

    const loopB = (async () => {
      for await (const _ of b.consumer.batches());
    })();
    const before = b.seen.length;
    b.setLabel('b-2');
    b.consumer.enforceRebalance();
    while (b.seen.at(-1)?.userData !== 'you said b-2' && Date.now() < deadline + 20_000) await new Promise((r) => setTimeout(r, 50));
    assert.equal(b.seen.at(-1)?.userData, 'you said b-2');
    assert.ok(b.seen.length > before);
    await Promise.all([a.consumer.close(), b.consumer.close()]);
    await Promise.all([loopA, loopB]);
  } finally {
    await a.consumer.close();
    await b.consumer.close();
  }
});
