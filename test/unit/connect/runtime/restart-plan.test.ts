/**
 * restartPlan (KIP-745, Kafka's RestartPlan): which of a connector and its
 * tasks POST /connectors/{name}/restart restarts for each combination of
 * includeTasks and onlyFailed, and the status it answers with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restartPlan, type ConnectorStateInfo } from '../../../../src/connect/runtime/herder.js';

const status = (connector: string, tasks: string[]): ConnectorStateInfo => ({
  name: 'c',
  connector: { state: connector, worker_id: 'w1' },
  tasks: tasks.map((state, id) => ({ id, state, worker_id: `w${id + 1}` })),
  type: 'source',
});

const cases: { name: string; before: ConnectorStateInfo; includeTasks: boolean; onlyFailed: boolean; connector: boolean; tasks: number[] }[] = [
  { name: 'plain restart: the connector only', before: status('RUNNING', ['RUNNING', 'FAILED']), includeTasks: false, onlyFailed: false, connector: true, tasks: [] },
  { name: 'includeTasks: everything', before: status('RUNNING', ['RUNNING', 'FAILED']), includeTasks: true, onlyFailed: false, connector: true, tasks: [0, 1] },
  { name: 'includeTasks + onlyFailed: the failed task, not the running connector', before: status('RUNNING', ['RUNNING', 'FAILED']), includeTasks: true, onlyFailed: true, connector: false, tasks: [1] },
  { name: 'onlyFailed without tasks: a failed connector', before: status('FAILED', ['FAILED']), includeTasks: false, onlyFailed: true, connector: true, tasks: [] },
  { name: 'onlyFailed, nothing failed: nothing', before: status('RUNNING', ['RUNNING']), includeTasks: true, onlyFailed: true, connector: false, tasks: [] },
];

for (const c of cases) {
  test(`restart plan: ${c.name}`, () => {
    const plan = restartPlan(c.before, c.includeTasks, c.onlyFailed);
    assert.equal(plan.connector, c.connector);
    assert.deepEqual(plan.tasks, c.tasks);
    assert.equal(plan.status.connector.state, c.connector ? 'RESTARTING' : c.before.connector.state);
    assert.equal(plan.status.connector.worker_id, 'w1');
    assert.deepEqual(
      plan.status.tasks.map((t) => [t.id, t.state, t.worker_id]),
      c.before.tasks.map((t) => [t.id, c.tasks.includes(t.id) ? 'RESTARTING' : t.state, t.worker_id]),
    );
  });
}
