// The cluster plan the launcher runs: ports from a list (ephemeral, as
// startCluster and the tests pick them) or from a base port (cluster up),
// broker-only nodes, the lone single-node plan, and the configs that follow.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nodeConfig, planCluster, portsNeeded } from '../../../src/embedded/cluster-plan.js';
import { parseBrokerConfig } from '../../../src/config/broker.js';

const DIR = '/tmp/tributary-plan-test-does-not-exist';

describe('planCluster', () => {
  it('takes a list of ports in node order: broker then controller for combined nodes, broker alone for broker-only ones', () => {
    assert.equal(portsNeeded(2, 1), 5);
    const layout = planCluster({ controllers: 2, brokerOnly: 1, dir: DIR, ports: [41001, 41002, 41003, 41004, 41005] });
    assert.deepEqual(layout.nodes.map((n) => [n.id, n.brokerPort, n.controllerPort]), [[1, 41001, 41002], [2, 41003, 41004], [3, 41005, null]]);
    assert.equal(layout.voters, '1@127.0.0.1:41002,2@127.0.0.1:41004');
    assert.equal(layout.bootstrap, '127.0.0.1:41001,127.0.0.1:41003,127.0.0.1:41005');
    assert.throws(() => planCluster({ controllers: 3, dir: DIR, ports: [1, 2, 3] }), /3 ports given, port #4 needed/);
  });

  it('a base port keeps node i on base+2(i-1), broker-only nodes included', () => {
    const layout = planCluster({ controllers: 1, brokerOnly: 1, dir: DIR, ports: 19092 });
    assert.deepEqual(layout.nodes.map((n) => [n.brokerPort, n.controllerPort]), [[19092, 19093], [19094, null]]);
  });

  it('every planned config parses, with its own node id, roles and data dir', () => {
    const layout = planCluster({ controllers: 3, brokerOnly: 1, dir: DIR, ports: 29092 });
    for (const node of layout.nodes) {
      const config = parseBrokerConfig(nodeConfig(layout, node, { 'log.level': 'error' }));
      assert.equal(config.nodeId, node.id);
      assert.deepEqual(config.roles, { broker: true, controller: node.id <= 3 });
      assert.deepEqual(config.logDirs, [`${DIR}/node-${node.id}`]);
      assert.equal(config.get('log.level'), 'error', 'overrides apply');
    }
  });

  it('a lone plan is the single-node default: no quorum keys, port 0, the data dir given', () => {
    const layout = planCluster({ controllers: 1, dir: DIR, ports: [0], lone: true, nodeDir: () => DIR });
    const [node] = layout.nodes;
    assert.ok(node !== undefined);
    assert.equal(node.controllerPort, null);
    assert.equal(layout.voters, '');
    assert.deepEqual(nodeConfig(layout, node), { listeners: 'PLAINTEXT://127.0.0.1:0', 'log.dirs': DIR });
    assert.throws(() => planCluster({ controllers: 2, dir: DIR, ports: [0], lone: true }), /exactly one combined node/);
  });
});
