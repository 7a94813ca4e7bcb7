/**
 * Cluster configuration: process.roles, controller.quorum.voters and the
 * liveness timeouts resolve into BrokerSettings.cluster; the single-node
 * default stays a lone node; `tributary cluster up` writes configs that
 * parse and agree with each other; the listener API sets keep Raft and
 * lifecycle APIs off client listeners.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseBrokerConfig } from '../../../../src/config/broker.js';
import { ConfigError } from '../../../../src/config/errors.js';
import { isSingleNode, settingsFromConfig } from '../../../../src/broker/settings.js';
import { parseProperties } from '../../../../src/config/properties.js';
import { nodeProperties, planCluster } from '../../../../src/embedded/cluster-plan.js';
import { allHandlers } from '../../../../src/broker/handlers/index.js';
import { CONTROLLER_ONLY_API_KEYS, handlersForListener } from '../../../../src/broker/lifecycle/listener-apis.js';

function problems(raw: Record<string, string>): string {
  try {
    parseBrokerConfig(raw);
    return '';
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => p.message).join('\n');
    throw err;
  }
}

const THREE = {
  'node.id': '2',
  'controller.quorum.voters': '1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097',
  'controller.listener.names': 'CONTROLLER',
  listeners: 'PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:9095',
  'cluster.id': 'MkU3OEVBNTcwNTJENDM2Qg',
};

describe('cluster settings', () => {
  it('the default config is a lone combined node', () => {
    const s = settingsFromConfig(parseBrokerConfig({}));
    assert.ok(s.cluster !== undefined);
    assert.deepEqual(s.cluster.roles, { broker: true, controller: true });
    assert.deepEqual(s.cluster.voters, []);
    assert.equal(s.cluster.brokerSessionTimeoutMs, 9000);
    assert.equal(s.cluster.brokerHeartbeatIntervalMs, 2000);
    assert.equal(s.cluster.clusterId, null);
    assert.equal(isSingleNode(s), true);
  });

  it('a three-voter node resolves voters, controller listener and timeouts, and is not alone', () => {
    const s = settingsFromConfig(parseBrokerConfig({ ...THREE, 'broker.session.timeout.ms': '3000', 'broker.heartbeat.interval.ms': '500', 'controller.quorum.election.timeout.ms': '400' }));
    assert.ok(s.cluster !== undefined);
    assert.deepEqual(s.cluster.voters.map((v) => `${v.id}@${v.host}:${v.port}`), ['1@127.0.0.1:9093', '2@127.0.0.1:9095', '3@127.0.0.1:9097']);
    assert.deepEqual(s.cluster.controllerListenerNames, ['CONTROLLER']);
    assert.equal(s.cluster.brokerSessionTimeoutMs, 3000);
    assert.equal(s.cluster.brokerHeartbeatIntervalMs, 500);
    assert.equal(s.cluster.electionTimeoutMs, 400);
    assert.equal(s.cluster.clusterId, 'MkU3OEVBNTcwNTJENDM2Qg');
    assert.equal(isSingleNode(s), false);
    // The controller listener is not advertised to clients, and needs no protocol map entry.
    assert.deepEqual(s.advertisedListeners.map((l) => l.name), ['PLAINTEXT']);
  });

  it('one voter that is this node is still a lone node', () => {
    const s = settingsFromConfig(parseBrokerConfig({ 'node.id': '1', 'controller.quorum.voters': '1@127.0.0.1:9093', 'controller.listener.names': 'CONTROLLER', listeners: 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093' }));
    assert.equal(isSingleNode(s), true);
  });

  it('refuses a heartbeat interval that is not below the session timeout', () => {
    assert.match(problems({ 'broker.heartbeat.interval.ms': '9000' }), /broker\.heartbeat\.interval\.ms: 9000 must be less than broker\.session\.timeout\.ms 9000/);
    assert.equal(problems({ 'broker.heartbeat.interval.ms': '8999' }), '');
  });

  it('names what is missing for a multi-voter controller', () => {
    assert.match(problems({ ...THREE, 'controller.listener.names': '' }), /controller\.listener\.names: required/);
    assert.match(problems({ ...THREE, listeners: 'PLAINTEXT://127.0.0.1:9094' }), /CONTROLLER is not in listeners/);
  });
});

describe('tributary cluster up layout', () => {
  it('gives each node its own ports and data dir, one voter list and one cluster id; every config parses', () => {
    const layout = planCluster({ controllers: 3, dir: '/tmp/tributary-layout-test-does-not-exist', ports: 19092 });
    assert.equal(layout.voters, '1@127.0.0.1:19093,2@127.0.0.1:19095,3@127.0.0.1:19097');
    assert.equal(layout.bootstrap, '127.0.0.1:19092,127.0.0.1:19094,127.0.0.1:19096');
    assert.match(layout.clusterId, /^[A-Za-z0-9_-]{22}$/);
    const ports = new Set<number>();
    for (const node of layout.nodes) {
      const raw = Object.fromEntries(parseProperties(nodeProperties(layout, node)).entries.map((e) => [e.key, e.value]));
      const config = parseBrokerConfig(raw);
      assert.equal(config.nodeId, node.id);
      assert.deepEqual(config.quorumVoters.map((v) => v.port), [19093, 19095, 19097]);
      assert.equal(config.get('cluster.id'), layout.clusterId);
      assert.deepEqual(config.logDirs, [node.dataDir]);
      for (const l of config.listeners) {
        assert.ok(!ports.has(l.port), `port ${l.port} used once`);
        ports.add(l.port);
      }
    }
    assert.equal(ports.size, 6);
  });
});

describe('listener API sets', () => {
  it('client listeners never serve Raft or broker-lifecycle APIs; controller listeners serve them and the forwarded admin APIs', () => {
    const broker = new Set(handlersForListener(allHandlers, 'broker').map((h) => h.apiKey));
    for (const key of CONTROLLER_ONLY_API_KEYS) assert.ok(!broker.has(key), `API ${key} is not on client listeners`);
    assert.ok(broker.has(0) && broker.has(3) && broker.has(19));
    const controller = new Set(handlersForListener(allHandlers, 'controller').map((h) => h.apiKey));
    for (const key of [18, 19, 20, 33, 37, 44, 62, 63]) assert.ok(controller.has(key), `API ${key} on controller listeners`);
    assert.ok(!controller.has(0) && !controller.has(3), 'no Produce or Metadata on controller listeners');
    assert.ok(broker.has(55), 'client listeners answer DescribeQuorum (forwarded to the active controller)');
  });
});
