#!/usr/bin/env node
// What authorization costs (issue 14: < 5% on the produce path). Two parts,
// in one run. Build first: npx tsc -p tsconfig.build.json
//
//   node bench/authorizer.mjs [--runs 3] [--sends 20000] [--acls 10000]
//
// 1. Micro: one check answered from a connection's decision cache (what a
//    Produce request pays per topic), one uncached StandardAuthorizer
//    decision among --acls ACLs (literal, prefixed, wildcard), and
//    authorizeByResourceType (uncached; connections cache it).
// 2. End to end: an in-process broker (PLAINTEXT listener for the producer,
//    User:ANONYMOUS; SASL listener for the admin, a super user) with the
//    authorizer off, then on with ACLs granting ANONYMOUS exactly what it
//    needs, alternating, --runs each. kafkajs sends --sends single-record
//    requests (acks=1, 64 in flight), the request-rate-bound case where a
//    per-request cost shows most. The table is the median per mode.
import { parseArgs } from 'node:util';
import kafkajs from 'kafkajs';
import { StandardAuthorizer } from '../dist/src/security/authorizer/standard-authorizer.js';
import { DecisionCache } from '../dist/src/security/authorizer/decision-cache.js';
import { AclOperation, AclPermissionType, PatternType, ResourceType } from '../dist/src/protocol/acl-types.js';
import { Admin } from '../dist/src/client/admin.js';
import { startSaslBroker } from '../dist/test/helpers/sasl.js';

const { Kafka, logLevel } = kafkajs;
const { values: opts } = parseArgs({ options: { runs: { type: 'string', default: '3' }, sends: { type: 'string', default: '20000' }, acls: { type: 'string', default: '10000' } } });
const RUNS = Number(opts.runs);
const SENDS = Number(opts.sends);
const ACLS = Number(opts.acls);

function timeIt(n, fn) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - start) / n;
}

function micro() {
  const acls = [];
  for (let i = 0; i < ACLS; i++) {
    acls.push({ resourceType: ResourceType.TOPIC, resourceName: i % 3 === 0 ? `team-${i}.` : `topic-${i}`, patternType: i % 3 === 0 ? PatternType.PREFIXED : PatternType.LITERAL, principal: `User:u${i % 100}`, host: '*', operation: AclOperation.WRITE, permissionType: AclPermissionType.ALLOW });
  }
  acls.push({ resourceType: ResourceType.TOPIC, resourceName: '*', patternType: PatternType.LITERAL, principal: 'User:ops', host: '*', operation: AclOperation.DESCRIBE, permissionType: AclPermissionType.ALLOW });
  const source = { generation: 1, all: () => acls };
  const a = new StandardAuthorizer({ superUsers: new Set(), allowEveryoneIfNoAclFound: false }, () => source);
  const cache = new DecisionCache(a, '127.0.0.1');
  const name = 'team-3.orders';
  const cached = timeIt(2_000_000, () => cache.allowed('User:u3', AclOperation.WRITE, ResourceType.TOPIC, name));
  const cold = timeIt(200_000, (i) => a.authorize('User:u3', '127.0.0.1', AclOperation.WRITE, ResourceType.TOPIC, `team-${(i % 1000) * 3}.x`));
  const byType = timeIt(200, () => a.authorizeByResourceType('User:u3', '127.0.0.1', AclOperation.WRITE, ResourceType.TOPIC));
  console.log(`micro (${ACLS} ACLs): cached check ${cached.toFixed(0)} ns, uncached decision ${(cold / 1000).toFixed(2)} µs, authorizeByResourceType ${(byType / 1000).toFixed(1)} µs`);
}

async function produceRun(authorizer) {
  const broker = await startSaslBroker(authorizer ? { 'authorizer.class.name': 'standard', 'super.users': 'User:admin' } : {});
  try {
    const topic = `bench-${Date.now()}`;
    const admin = await Admin.connect({ bootstrap: `127.0.0.1:${broker.saslPort}`, sasl: { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' } });
    await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
    if (authorizer) {
      const grant = (resourceType, resourceName, patternType, operation) => ({ resourceType, resourceName, patternType, principal: 'User:ANONYMOUS', host: '*', operation, permissionType: 'ALLOW' });
      const r = await admin.createAcls([grant('TOPIC', 'bench-', 'PREFIXED', 'WRITE'), grant('TOPIC', 'bench-', 'PREFIXED', 'DESCRIBE'), grant('CLUSTER', 'kafka-cluster', 'LITERAL', 'IDEMPOTENT_WRITE')]);
      for (const x of r) if (x.error) throw x.error;
    }
    await admin.close();
    const kafka = new Kafka({ clientId: 'bench', brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const value = Buffer.alloc(100, 120);
    await producer.send({ topic, acks: 1, messages: [{ value }] });
    const start = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < SENDS) {
        next++;
        await producer.send({ topic, acks: 1, messages: [{ value }] });
      }
    };
    await Promise.all(Array.from({ length: 64 }, worker));
    const ms = performance.now() - start;
    await producer.disconnect();
    return SENDS / (ms / 1000);
  } finally {
    await broker.stop();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

micro();
const rates = { off: [], on: [] };
for (let run = 0; run < RUNS; run++) {
  for (const mode of run % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
    const rps = await produceRun(mode === 'on');
    rates[mode].push(rps);
    console.log(`run ${run + 1} authorizer ${mode.padEnd(3)} ${Math.round(rps)} produce requests/s`);
  }
}
const off = median(rates.off);
const on = median(rates.on);
console.log(`median: authorizer off ${Math.round(off)} req/s, on ${Math.round(on)} req/s (${(((on - off) / off) * 100).toFixed(1)}%)`);
