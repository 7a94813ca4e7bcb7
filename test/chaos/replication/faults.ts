/**
 * The fault schedules of the replication chaos suite (issue 12, "Tests"),
 * each bounded (< ~60 s with the load) and each leaving every node up and
 * connected at its end (the load goes on a few seconds after it, so the
 * recovery is measured too). Victims are drawn from the run's seed.
 */
import type { FaultContext, Scenario } from './scenario.js';
import { NODES } from './scenario.js';

/** How long a victim stays down, paused or cut off: well past the session timeout (2 s in the test clusters). */
const OUTAGE_MS = 5_000;

/** A leader of a random partition, waiting (bounded) while leadership is still moving. */
async function someLeader(ctx: FaultContext): Promise<{ partition: number; leader: number }> {
  const partition = ctx.random.int(ctx.partitions);
  for (let i = 0; i < 50; i++) {
    const leader = await ctx.leaderOf(partition);
    if (leader >= 0) return { partition, leader };
    await ctx.sleep(100);
  }
  throw new Error(`partition ${partition} of ${ctx.topic} has no leader`);
}

export const leaderKill: Scenario = {
  name: 'leader-kill',
  async faults(ctx) {
    const { partition, leader } = await someLeader(ctx);
    await ctx.cluster.node(leader).kill9();
    ctx.mark(`kill -9 of node ${leader} (leader of partition ${partition})`);
    await ctx.sleep(OUTAGE_MS);
    await ctx.bringBack(leader);
    ctx.mark(`node ${leader} restarted`);
  },
};

export const controllerKill: Scenario = {
  name: 'controller-kill',
  async faults(ctx) {
    const controller = await ctx.cluster.waitForActiveController([...NODES]);
    await ctx.cluster.node(controller).kill9();
    ctx.mark(`kill -9 of node ${controller} (active controller)`);
    await ctx.sleep(OUTAGE_MS);
    await ctx.bringBack(controller);
    ctx.mark(`node ${controller} restarted`);
  },
};

export const leaderPause: Scenario = {
  name: 'leader-pause',
  async faults(ctx) {
    const { partition, leader } = await someLeader(ctx);
    ctx.cluster.pause(leader);
    ctx.mark(`SIGSTOP of node ${leader} (leader of partition ${partition})`);
    await ctx.sleep(OUTAGE_MS);
    ctx.cluster.resume(leader);
    ctx.mark(`SIGCONT of node ${leader}`);
    await ctx.bringBack(leader);
  },
};

export const rollingRestart: Scenario = {
  name: 'rolling-restart',
  async faults(ctx) {
    // A random order, each node stopped cleanly (controlled shutdown) and back before the next.
    const order = [...NODES];
    for (let i = order.length - 1; i > 0; i--) {
      const j = ctx.random.int(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const id of order) {
      await ctx.cluster.node(id).stop();
      ctx.mark(`clean stop of node ${id}`);
      await ctx.bringBack(id);
    }
  },
};

export const networkPartition: Scenario = {
  name: 'network-partition',
  // A partitioned node serving FindCoordinator cannot reach the controller to create the offsets topic,
  // and logs it at error level: expected while it is cut off.
  allowErrorLogs: [/could not create __consumer_offsets: no active controller answered in time/],
  async faults(ctx) {
    const network = ctx.cluster.network;
    if (network === null) throw new Error('network-partition needs a cluster started with network: true');
    const { partition, leader } = await someLeader(ctx);
    network.partition(leader);
    ctx.mark(`network partition of node ${leader} (leader of partition ${partition})`);
    await ctx.sleep(OUTAGE_MS);
    network.heal();
    ctx.mark(`heal of node ${leader}`);
    await ctx.bringBack(leader);
  },
};

export const ALL_SCENARIOS: readonly Scenario[] = [leaderKill, controllerKill, leaderPause, rollingRestart, networkPartition];
