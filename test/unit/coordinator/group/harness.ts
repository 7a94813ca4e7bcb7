/** Builds a GroupCoordinator on virtual time with a fake persistence, plus request shorthands. */
import { GroupCoordinator } from '../../../../src/coordinator/group/coordinator.js';
import type { JoinGroupInput, JoinGroupResult, SyncGroupResult } from '../../../../src/coordinator/group/coordinator-api.js';
import { encodeSubscription } from '../../../../src/coordinator/group/member.js';
import type { GroupCoordinatorConfig } from '../../../../src/coordinator/group/types.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { FakePersistence, type CompletionMode } from './fake-persistence.js';
import { VirtualTimers, settle } from '../../../helpers/virtual-timers.js';

export const TEST_CONFIG: GroupCoordinatorConfig = {
  initialRebalanceDelayMs: 0,
  minSessionTimeoutMs: 6_000,
  maxSessionTimeoutMs: 300_000,
  maxSize: 100,
  offsetsRetentionMs: 7 * 24 * 3600 * 1000,
  offsetMetadataMaxBytes: 4096,
};

export interface Harness {
  readonly clock: ManualClock;
  readonly timers: VirtualTimers;
  readonly persistence: FakePersistence;
  readonly coordinator: GroupCoordinator;
  readonly config: GroupCoordinatorConfig;
  /** Builds a fresh coordinator on the same clock/timers/persistence (a restart). */
  restart(): GroupCoordinator;
}

export function harness(config: Partial<GroupCoordinatorConfig> = {}, mode: CompletionMode = { kind: 'immediate' }): Harness {
  const clock = new ManualClock();
  const timers = new VirtualTimers(clock);
  const persistence = new FakePersistence(mode);
  let n = 0;
  const make = (): GroupCoordinator =>
    new GroupCoordinator({
      clock,
      timers,
      persistence,
      config: { ...TEST_CONFIG, ...config },
      newMemberId: (clientId) => `${clientId}-${++n}`,
    });
  const h = {
    clock,
    timers,
    persistence,
    coordinator: make(),
    config: { ...TEST_CONFIG, ...config },
    restart(): GroupCoordinator {
      h.coordinator.shutdown();
      persistence.fence();
      h.coordinator = make();
      h.coordinator.loadPartition(persistence.load());
      return h.coordinator;
    },
  };
  return h;
}

export const sub = (...topics: string[]): Buffer => encodeSubscription(topics);

export function joinInput(over: Partial<JoinGroupInput> = {}): JoinGroupInput {
  return {
    groupId: 'g',
    memberId: '',
    groupInstanceId: null,
    clientId: 'c',
    clientHost: '/127.0.0.1',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: sub('t') }],
    requireKnownMemberId: false,
    ...over,
  };
}

/** A promise whose settlement can be checked without awaiting it. */
export class Pending<T> {
  value: T | undefined;
  done = false;
  constructor(p: Promise<T>) {
    void p.then((v) => {
      this.value = v;
      this.done = true;
    });
  }
  get(): T {
    if (!this.done || this.value === undefined) throw new Error('not settled yet');
    return this.value;
  }
}

export async function pending<T>(p: Promise<T>): Promise<Pending<T>> {
  const x = new Pending(p);
  await settle();
  return x;
}

/** Joins `n` dynamic members into a fresh group and completes the rebalance (all joined). Returns their join results. */
export async function formGroup(h: Harness, ids: string[], over: Partial<JoinGroupInput> = {}): Promise<JoinGroupResult[]> {
  const joins = ids.map((clientId) => new Pending(h.coordinator.joinGroup(joinInput({ clientId, ...over }))));
  await h.timers.advance(0);
  await h.timers.advance(h.config.initialRebalanceDelayMs);
  return joins.map((j) => j.get());
}

/** Leader and followers sync; the leader assigns `assignment(memberId)`. */
export async function syncAll(h: Harness, joins: JoinGroupResult[], assignment = (m: string) => Buffer.from(`a:${m}`), groupId = 'g'): Promise<SyncGroupResult[]> {
  const leader = joins.find((j) => j.memberId === j.leaderId);
  if (leader === undefined) throw new Error('no leader');
  const syncs = joins.map(
    (j) =>
      new Pending(
        h.coordinator.syncGroup({
          groupId,
          generationId: j.generationId,
          memberId: j.memberId,
          groupInstanceId: null,
          protocolType: null,
          protocolName: null,
          assignments: j === leader ? leader.members.map((m) => ({ memberId: m.memberId, assignment: assignment(m.memberId) })) : [],
        }),
      ),
  );
  await h.timers.advance(0);
  return syncs.map((s) => s.get());
}
