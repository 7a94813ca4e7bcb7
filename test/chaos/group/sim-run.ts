/** The simulation driver (see coordinator-sim.test.ts): builds a world, injects faults, runs the quiet phase. */
import { settle } from '../../helpers/virtual-timers.js';
import { SimWorld, type GroupSpec } from './sim-world.js';

const FAULT_PHASE_MS = 90_000;
const QUIET_PHASE_MS = 200_000;

async function runUntil(w: SimWorld, limitMs: number): Promise<void> {
  while (w.timers.runNext(limitMs)) {
    await settle();
    w.check();
  }
  const now = w.nowMs();
  if (limitMs > now) w.clock.advance(limitMs - now);
}

function injectFault(w: SimWorld): void {
  const r = w.random;
  const live = w.clients.filter((c) => c.live);
  const anyLive = (): ReturnType<typeof w.pick<(typeof live)[number]>> | null => (live.length === 0 ? null : w.pick(live));
  const roll = r.int(100);
  if (roll < 20) {
    const spec = w.pick(w.groups);
    if (w.clients.filter((c) => c.groupId === spec.groupId && c.live).length < 8) {
      w.spawn(spec, r.next() < 0.3 ? `${spec.groupId}-i${r.int(4)}` : null, r.next() < 0.02);
    }
  } else if (roll < 32) {
    const c = anyLive();
    if (c !== null) {
      w.log(`close ${c.name}`);
      c.close();
    }
  } else if (roll < 44) {
    const c = anyLive();
    if (c !== null) {
      w.log(`crash ${c.name}`);
      c.crash();
    }
  } else if (roll < 60) {
    // A static member restarts: the old process dies, a new one with the same instance id starts.
    const statics = live.filter((c) => c.instanceId !== null);
    if (statics.length > 0) {
      const c = w.pick(statics);
      w.log(`restart static ${c.name} (${c.instanceId})`);
      c.crash();
      const spec = w.groups.find((g) => g.groupId === c.groupId);
      const delay = r.int(c.sessionTimeoutMs);
      if (spec !== undefined && c.instanceId !== null) {
        const instanceId = c.instanceId;
        w.timers.schedule(delay, () => {
          if (!w.clients.some((x) => x.live && x.instanceId === instanceId)) w.spawn(spec, instanceId);
        });
      }
    }
  } else if (roll < 70) {
    const c = anyLive();
    if (c !== null) {
      c.slowUntilMs = w.nowMs() + c.rebalanceTimeoutMs + r.int(10_000);
      w.log(`slow ${c.name} until ${c.slowUntilMs}`);
    }
  } else if (roll < 77) {
    const c = anyLive();
    if (c !== null) {
      c.pausedUntilMs = w.nowMs() + r.int(2 * c.sessionTimeoutMs);
      w.log(`pause ${c.name} until ${c.pausedUntilMs}`);
    }
  } else if (roll < 87) {
    const n = 1 + r.int(4);
    w.log(`persistence fails the next ${n} writes`);
    w.persistence.failNext += n;
  } else if (roll < 92) {
    w.persistence.failAll = true;
    const ms = r.int(3000);
    w.log(`persistence down for ${ms} ms`);
    w.timers.schedule(ms, () => {
      w.persistence.failAll = false;
    });
  } else {
    w.restart();
  }
}

export async function simulate(seed: number): Promise<SimWorld> {
  const w = new SimWorld(seed);
  const groupCount = 1 + w.random.int(3);
  for (let g = 0; g < groupCount; g++) {
    const topics = w.random.next() < 0.5 ? [`g${g}-a`] : [`g${g}-a`, `g${g}-b`];
    const spec: GroupSpec = { groupId: `group-${g}`, topics, commonProtocol: w.pick(['range', 'roundrobin']) };
    w.addGroup(spec, topics.map(() => 1 + w.random.int(12)));
    const initial = 1 + w.random.int(8);
    for (let i = 0; i < initial; i++) w.spawn(spec, w.random.next() < 0.3 ? `${spec.groupId}-i${i}` : null);
  }
  while (w.nowMs() < FAULT_PHASE_MS) {
    await runUntil(w, w.nowMs() + 200 + w.random.int(4000));
    injectFault(w);
    await settle();
    w.check();
  }
  // Quiet: faults stop (pauses and slow polls run out, persistence recovers); the groups must settle.
  w.persistence.failNext = 0;
  w.timers.schedule(5_000, () => {
    w.persistence.failAll = false;
  });
  await runUntil(w, FAULT_PHASE_MS + QUIET_PHASE_MS);
  w.checkConverged();
  return w;
}

