// The authorization matrix (issue 14), generated from the one table of what
// each API asks (src/security/authorizer/api-acls.ts). For every API the
// broker serves: a principal granted exactly the row's ACLs is not refused,
// one without them gets the row's error code (or, for listing APIs, an
// answer without the resources it may not describe), a principal allowed
// everything and a super user are not refused. Every served API key must
// have a row and a scenario here, so a new API cannot be added without both.
// Principals are SASL PLAIN users from the JAAS config.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin.js';
import type { Acl } from '../../../src/client/acl-admin.js';
import { Connection } from '../../../src/net/connection.js';
import { API_ACLS, type Requirement } from '../../../src/security/authorizer/api-acls.js';
import { allHandlers } from '../../../src/broker/handlers/index.js';
import { CONTROLLER_LISTENER_API_KEYS, handlersForListener } from '../../../src/broker/lifecycle/listener-apis.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { CLUSTER_NAME } from '../../../src/protocol/acl-types.js';
import { startSaslBroker, type SaslBroker } from '../../helpers/sasl.js';
import { SCENARIOS, NAMES, setUpResources, type Scenario } from './authorization-scenarios.js';

const USERS = { admin: 'admin-secret', granted: 'granted-secret', nobody: 'nobody-secret', everything: 'everything-secret' } as const;
type User = keyof typeof USERS;
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" ${Object.entries(USERS).map(([u, p]) => `user_${u}="${p}"`).join(' ')};`;

const AUTHORIZATION_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.GROUP_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
]);

/** Every errorCode in a decoded response. */
function errorCodes(value: unknown, out: number[] = []): number[] {
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return out;
  if (Array.isArray(value)) {
    for (const v of value) errorCodes(v, out);
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'errorCode' && typeof v === 'number') out.push(v);
    else errorCodes(v, out);
  }
  return out;
}

/** The requirements of a row a scenario exercises: its own pick, else those without a condition. */
function applying(key: number, s: Scenario): Requirement[] {
  const row = API_ACLS[key];
  assert.ok(row !== undefined);
  return s.applies !== undefined ? s.applies.map((i) => row.requires[i] as Requirement) : row.requires.filter((r) => r.when === undefined);
}

/** The ACLs that grant exactly the scenario's requirements to `principal`, from the table. */
function grantsOf(key: number, s: Scenario, principal: string): Acl[] {
  return applying(key, s).map((r) => {
    const names = { ...NAMES, ...s.names, CLUSTER: CLUSTER_NAME } as Record<string, string>;
    return { resourceType: r.resource as Acl['resourceType'], resourceName: names[r.resource] ?? '*', patternType: 'LITERAL', principal, host: '*', operation: r.operation as Acl['operation'], permissionType: 'ALLOW' };
  });
}

describe('authorization matrix: every API, from the table', { timeout: 240_000 }, () => {
  let broker: SaslBroker;
  let admin: Admin;
  const conns = new Map<User, Connection>();
  const served: number[] = [];

  before(async () => {
    broker = await startSaslBroker({
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': JAAS,
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users': 'User:admin',
      'group.initial.rebalance.delay.ms': '0',
      'offsets.topic.replication.factor': '1',
      'transaction.state.log.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
    });
    const bootstrap = `127.0.0.1:${broker.saslPort}`;
    admin = await Admin.connect({ bootstrap, sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
    await admin.createTopics([{ name: NAMES.TOPIC, numPartitions: 1, replicationFactor: 1 }]);
    for (const [user, password] of Object.entries(USERS) as [User, string][]) {
      conns.set(user, await Connection.connect({ host: '127.0.0.1', port: broker.saslPort, clientId: `matrix-${user}`, sasl: { mechanism: 'PLAIN', username: user, password } }));
    }
    const admins = conns.get('admin') as Connection;
    served.push(...[...admins.apiVersions.keys()].sort((a, b) => a - b));
    // A group and a transactional id that exist, so the listing APIs have something to leave out.
    await setUpResources(admins);
    const everything: Acl[] = (['TOPIC', 'GROUP', 'TRANSACTIONAL_ID', 'CLUSTER'] as const).map((t) => ({ resourceType: t, resourceName: t === 'CLUSTER' ? CLUSTER_NAME : '*', patternType: 'LITERAL', principal: 'User:everything', host: '*', operation: 'ALL', permissionType: 'ALLOW' }));
    for (const r of await admin.createAcls(everything)) assert.equal(r.error, null);
  });

  after(async () => {
    for (const c of conns.values()) c.destroy();
    await admin?.close();
    await broker?.stop();
  });

  it('every API the broker serves, on client and controller listeners, has a row in the table with the handler\'s name', () => {
    const keys = new Set([...handlersForListener(allHandlers, 'broker').map((h) => h.apiKey), ...CONTROLLER_LISTENER_API_KEYS]);
    for (const h of allHandlers) {
      if (!keys.has(h.apiKey)) continue;
      assert.equal(API_ACLS[h.apiKey]?.name, h.name, `API ${h.apiKey} (${h.name}) has no row in src/security/authorizer/api-acls.ts`);
    }
  });

  it('every API this broker advertises has a scenario', () => {
    for (const key of served) assert.ok(SCENARIOS[key] !== undefined || (API_ACLS[key]?.requires.length ?? 0) === 0, `no authorization scenario for API ${key} (${API_ACLS[key]?.name})`);
  });

  it('for each API: exactly the required ACLs pass, none is refused with the row\'s error; allow-everything and super users pass', async () => {
    const failures: string[] = [];
    for (const key of served) {
      const s = SCENARIOS[key];
      const row = API_ACLS[key];
      if (s === undefined || row === undefined) continue;
      const grants = grantsOf(key, s, 'User:granted');
      if (grants.length > 0) for (const r of await admin.createAcls(grants)) assert.equal(r.error, null);
      try {
        for (const user of ['granted', 'everything', 'admin'] as const) {
          const codes = errorCodes(await s.send(conns.get(user) as Connection));
          const refused = codes.filter((c) => AUTHORIZATION_ERRORS.has(c));
          if (refused.length > 0) failures.push(`${row.name}: ${user} refused with ${refused.join(',')}`);
          if (s.filtered !== undefined && !s.filtered.visible(await s.send(conns.get(user) as Connection))) failures.push(`${row.name}: ${user} does not see the resource`);
        }
        const denied = await s.send(conns.get('nobody') as Connection);
        const expected = applying(key, s)[0];
        if (s.filtered !== undefined) {
          if (s.filtered.visible(denied)) failures.push(`${row.name}: nobody sees a resource it may not describe`);
        } else if (expected === undefined) {
          if (errorCodes(denied).some((c) => AUTHORIZATION_ERRORS.has(c))) failures.push(`${row.name}: needs nothing, yet nobody was refused`);
        } else if (!errorCodes(denied).includes(ErrorCode[expected.error])) {
          failures.push(`${row.name}: nobody got ${errorCodes(denied).join(',')}, expected ${expected.error}`);
        }
      } finally {
        if (grants.length > 0) await admin.deleteAcls([{ principal: 'User:granted' }, { principal: 'User:matrix-dummy' }]);
      }
    }
    assert.deepEqual(failures, []);
  });

  it('each of several requirements is needed on its own (TxnOffsetCommit: WRITE on the transactional id, READ on the group and on the topic)', async () => {
    const s = SCENARIOS[28] as Scenario;
    const all = grantsOf(28, s, 'User:granted');
    for (let missing = 0; missing < all.length; missing++) {
      const partial = all.filter((_a, i) => i !== missing);
      for (const r of await admin.createAcls(partial)) assert.equal(r.error, null);
      try {
        const codes = errorCodes(await s.send(conns.get('granted') as Connection));
        const expected = applying(28, s)[missing] as Requirement;
        assert.ok(codes.includes(ErrorCode[expected.error]), `TxnOffsetCommit without ${expected.operation} ${expected.resource}: got ${codes.join(',')}`);
      } finally {
        await admin.deleteAcls([{ principal: 'User:granted' }]);
      }
    }
  });

});
