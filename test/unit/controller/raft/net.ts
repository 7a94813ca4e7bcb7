/** A tiny synchronous network for the Raft unit tests: messages delivered in order at once, links that can be cut. */
import assert from 'node:assert/strict';
import { SeededRandom } from '../../../../src/util/random.js';
import { DEFAULT_RAFT_TIMEOUTS, InMemoryRaftStorage, RaftNode, type NodeId, type Outbound, type RaftConfig, type RaftMessage } from '../../../../src/controller/raft/index.js';

export class Net {
  readonly nodes = new Map<NodeId, RaftNode>();
  readonly storage = new Map<NodeId, InMemoryRaftStorage>();
  readonly cut = new Set<string>();
  nowMs = 0;
  private readonly random = new SeededRandom(7);
  queue: { from: NodeId; out: Outbound }[] = [];

  /** Every message delivered, for tests that look at the traffic. */
  readonly delivered: { from: NodeId; to: NodeId; message: RaftMessage }[] = [];

  constructor(
    readonly voters: readonly NodeId[],
    readonly overrides: Partial<RaftConfig> = {},
  ) {
    for (const id of voters) {
      this.storage.set(id, new InMemoryRaftStorage());
      this.start(id);
    }
  }

  start(id: NodeId): void {
    const storage = this.storage.get(id);
    assert.ok(storage !== undefined);
    this.nodes.set(id, new RaftNode({ ...DEFAULT_RAFT_TIMEOUTS, ...this.overrides, nodeId: id, voters: this.voters }, storage, this.random, this.nowMs));
  }

  node(id: NodeId): RaftNode {
    const n = this.nodes.get(id);
    assert.ok(n !== undefined, `node ${id} runs`);
    return n;
  }

  isolate(id: NodeId): void {
    for (const v of this.voters) if (v !== id) this.cut.add(`${id}-${v}`).add(`${v}-${id}`);
  }

  heal(): void {
    this.cut.clear();
  }

  flush(): void {
    while (this.queue.length > 0) {
      const item = this.queue.shift();
      assert.ok(item !== undefined);
      const to = this.nodes.get(item.out.to);
      if (to === undefined || this.cut.has(`${item.from}-${item.out.to}`)) continue;
      this.delivered.push({ from: item.from, to: item.out.to, message: item.out.message });
      for (const o of to.receive(item.out.message, this.nowMs)) this.queue.push({ from: item.out.to, out: o });
    }
  }

  /** Advance virtual time in 10 ms ticks, delivering every message at once. */
  run(ms: number): void {
    const end = this.nowMs + ms;
    while (this.nowMs < end) {
      this.nowMs += 10;
      for (const [id, n] of this.nodes) for (const o of n.tick(this.nowMs)) this.queue.push({ from: id, out: o });
      this.flush();
    }
  }

  leaders(): RaftNode[] {
    return [...this.nodes.values()].filter((n) => n.roleName === 'leader');
  }

  leader(): RaftNode {
    const ls = this.leaders();
    assert.equal(ls.length, 1, 'exactly one leader');
    const l = ls[0];
    assert.ok(l !== undefined);
    return l;
  }
}

