/**
 * Broker-only nodes in configuration: `tributary cluster up --nodes n --brokers m`
 * lays out m extra nodes with process.roles=broker and no controller listener,
 * not in the voter list, whose configs parse into observer settings (node id
 * outside controller.quorum.voters); a broker-only node that names itself a
 * voter is refused at start-up (ClusterNode.create).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { parseBrokerConfig } from '../../../../src/config/broker.js';
import { parseProperties } from '../../../../src/config/properties.js';
import { settingsFromConfig } from '../../../../src/broker/settings.js';
import { nodeProperties, planCluster } from '../../../../src/embedded/cluster-plan.js';
import { ClusterNode } from '../../../../src/broker/lifecycle/cluster-node.js';
import { MemoryFileSystem } from '../../../../src/storage/index.js';
import { systemClock } from '../../../../src/util/clock.js';

describe('broker-only nodes: layout and configuration', () => {
  it('cluster up --brokers adds broker-only nodes that are not voters and have no controller listener', () => {
    const layout = planCluster({ controllers: 3, brokerOnly: 2, dir: '/tmp/tributary-observer-layout-does-not-exist', ports: 29092 });
    assert.equal(layout.nodes.length, 5);
    assert.equal(layout.voters, '1@127.0.0.1:29093,2@127.0.0.1:29095,3@127.0.0.1:29097', 'only the combined nodes vote');
    assert.equal(layout.bootstrap.split(',').length, 5, 'every node serves clients');
    for (const node of layout.nodes) {
      const config = parseBrokerConfig(Object.fromEntries(parseProperties(nodeProperties(layout, node)).entries.map((e) => [e.key, e.value])));
      const brokerOnly = node.id > 3;
      assert.deepEqual(config.roles, { broker: true, controller: !brokerOnly });
      assert.equal(node.controllerPort === null, brokerOnly);
      assert.deepEqual(config.listeners.map((l) => l.name), brokerOnly ? ['PLAINTEXT'] : ['PLAINTEXT', 'CONTROLLER']);
      assert.equal(config.quorumVoters.some((v) => v.id === node.id), !brokerOnly);
    }
  });

  it('a broker-only node whose id is a voter is refused with a message', () => {
    const layout = planCluster({ controllers: 3, dir: '/tmp/tributary-observer-layout-does-not-exist', ports: 29092 });
    const node = layout.nodes[0];
    assert.ok(node !== undefined);
    const raw = Object.fromEntries(parseProperties(nodeProperties(layout, node, { 'process.roles': 'broker', listeners: 'PLAINTEXT://127.0.0.1:29092' })).entries.map((e) => [e.key, e.value]));
    const settings = settingsFromConfig(parseBrokerConfig(raw));
    assert.throws(
      () => ClusterNode.create({ settings, fs: new MemoryFileSystem(), clock: systemClock, logger: pino({ enabled: false }) }),
      /node\.id=1 is one of controller\.quorum\.voters/,
    );
  });
});
