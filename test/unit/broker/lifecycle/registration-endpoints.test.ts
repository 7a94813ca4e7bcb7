import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registrationEndpoints } from '../../../../src/broker/lifecycle/cluster-node.js';

test('a broker registers each listener with the id of its security protocol, whatever its name', () => {
  const endpoints = registrationEndpoints([
    { name: 'PLAINTEXT', host: 'h', port: 1 },
    { name: 'INTERNAL', host: 'h', port: 2, security: { protocol: 'SSL', sasl: null, tls: null } },
    { name: 'EXTERNAL', host: 'h', port: 3, security: { protocol: 'SASL_SSL', sasl: null, tls: null } },
    { name: 'SSL', host: 'h', port: 4, security: { protocol: 'SASL_PLAINTEXT', sasl: null, tls: null } },
  ]);
  assert.deepEqual(endpoints.map((e) => [e.name, e.securityProtocol]), [['PLAINTEXT', 0], ['INTERNAL', 1], ['EXTERNAL', 3], ['SSL', 2]]);
});
