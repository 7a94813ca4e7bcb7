// Unit tests of the pure helpers of `tributary config|cluster|records`; the
// commands run end to end in test/integration/cli/admin.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alterSummary, formatConfigs, parseAssignments, resourceFrom } from '../../../../src/cli/commands/config.js';
import { formatCluster, formatElections, formatLogDirs } from '../../../../src/cli/commands/cluster.js';
import { formatDeleteResults } from '../../../../src/cli/commands/records.js';
import { buildProgram } from '../../../../src/cli/main.js';
import { KafkaProtocolError } from '../../../../src/net/errors.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import type { ConfigEntryDetail } from '../../../../src/client/config-admin.js';

test('resourceFrom: exactly one of --topic, --broker, --broker-defaults', () => {
  assert.deepEqual(resourceFrom({ topic: 'orders' }), { type: 'topic', name: 'orders' });
  assert.deepEqual(resourceFrom({ broker: 0 }), { type: 'broker', name: '0' });
  assert.deepEqual(resourceFrom({ brokerDefaults: true }), { type: 'broker', name: '' });
  assert.throws(() => resourceFrom({}), /exactly one/);
  assert.throws(() => resourceFrom({ topic: 'a', broker: 1 }), /exactly one/);
  assert.throws(() => resourceFrom({ topic: '' }), /topic name/);
});

test('parseAssignments: key=value, values may hold =, no duplicates', () => {
  assert.deepEqual(parseAssignments(['a=1', 'b=x=y', 'c=']), [
    { name: 'a', value: '1' },
    { name: 'b', value: 'x=y' },
    { name: 'c', value: '' },
  ]);
  assert.throws(() => parseAssignments(['novalue']), /key=value/);
  assert.throws(() => parseAssignments(['=1']), /key=value/);
  assert.throws(() => parseAssignments(['a=1', 'a=2']), /twice/);
});

const entry = (over: Partial<ConfigEntryDetail>): ConfigEntryDetail => ({
  name: 'retention.ms',
  value: '1000',
  source: 'DYNAMIC_TOPIC_CONFIG',
  readOnly: false,
  isSensitive: false,
  synonyms: [],
  type: 'LONG',
  documentation: null,
  ...over,
});

test('formatConfigs: table with source and flags; sensitive values hidden; a note when empty', () => {
  const d = { type: 'topic' as const, name: 'orders', configs: [entry({}), entry({ name: 'p', isSensitive: true, value: null, readOnly: true })], error: null };
  assert.equal(
    formatConfigs(d, d.configs),
    ['NAME          VALUE        SOURCE                READ-ONLY  SENSITIVE', 'retention.ms  1000         DYNAMIC_TOPIC_CONFIG  no         no', 'p             (sensitive)  DYNAMIC_TOPIC_CONFIG  yes        yes', ''].join('\n'),
  );
  assert.equal(formatConfigs(d, []), 'No configs set on topic orders (--all shows the defaults).\n');
  assert.equal(formatConfigs({ ...d, type: 'broker', name: '', configs: [] }, []), 'No configs set on broker defaults.\n');
  const withSynonyms = formatConfigs(d, [entry({ synonyms: [{ name: 'log.retention.ms', value: '5', source: 'DEFAULT_CONFIG' }] })], { synonyms: true });
  assert.match(withSynonyms, /SYNONYMS\n.*log\.retention\.ms=5 \(DEFAULT_CONFIG\)/);
});

test('alterSummary names the keys, never the values', () => {
  assert.equal(alterSummary('set', ['a', 'b'], { type: 'topic', name: 'orders' }, false), 'Set a, b on topic orders.');
  assert.equal(alterSummary('delete', ['a'], { type: 'broker', name: '' }, false), 'Deleted a from broker defaults (back to the inherited value).');
  assert.equal(alterSummary('set', ['a'], { type: 'broker', name: '1' }, true), 'Validated, nothing changed: set a on broker 1.');
});

test('cluster and records tables', () => {
  assert.equal(
    formatCluster({ clusterId: 'c', controllerId: 1, brokers: [{ nodeId: 1, host: 'h', port: 9092, rack: null }], authorizedOperations: null }),
    'ClusterId: c\tController: 1\tBrokers: 1\nBROKER  HOST  PORT  RACK  CONTROLLER\n1       h     9092  -     yes\n',
  );
  const dirs = formatLogDirs([
    { nodeId: 1, error: null, logDirs: [{ path: '/d', error: null, totalBytes: null, usableBytes: 2048n, partitions: [{ topic: 't', partition: 0, sizeBytes: 10n, offsetLag: 0n, isFuture: false }] }] },
  ]);
  assert.equal(dirs, 'Broker: 1\tLogDir: /d\tPartitions: 1\tSize: 10 B\tTotal: -\tUsable: 2.0 KiB\nTOPIC  PARTITION  SIZE  BYTES  OFFSET-LAG  FUTURE\nt      0          10 B  10     0           no\n');
  assert.equal(formatElections([]), 'No partition needed an election.\n');
  const notNeeded = new KafkaProtocolError(ErrorCode.ELECTION_NOT_NEEDED);
  assert.match(formatElections([{ topic: 't', partition: 0, error: notNeeded }]), /t {6}0 {10}not needed {2}-/);
  assert.equal(
    formatDeleteResults([
      { topic: 't', partition: 0, lowWatermark: 5n, error: null },
      { topic: 't', partition: 1, lowWatermark: -1n, error: new KafkaProtocolError(ErrorCode.OFFSET_OUT_OF_RANGE) },
    ]),
    'TOPIC  PARTITION  LOG-START-OFFSET  ERROR\nt      0          5                 -\nt      1          -                 OFFSET_OUT_OF_RANGE',
  );
});

test('every client command has --bootstrap (env TRIBUTARY_BOOTSTRAP), examples in --help, and --json when it lists or describes', async () => {
  const program = await buildProgram();
  const leaves: { path: string; cmd: (typeof program.commands)[number] }[] = [];
  const walk = (cmd: (typeof program.commands)[number], path: string): void => {
    if (cmd.commands.length === 0) leaves.push({ path, cmd });
    for (const sub of cmd.commands) walk(sub, `${path} ${sub.name()}`);
  };
  for (const c of program.commands) if (c.name() !== 'start') walk(c, c.name());
  assert.ok(leaves.length >= 20, `commands: ${leaves.map((l) => l.path).join(', ')}`);
  // `cluster up|down` start and stop local node processes; they are not clients of a running cluster.
  // `connect standalone|distributed` run a worker (its brokers are in worker.properties); the other `connect`
  // commands are clients of a worker's REST API: --url (env CONNECT_URL) instead of --bootstrap.
  // `mirror status` reads its clusters' addresses from mm2.properties, as the mirror itself does.
  const nodeCommands = new Set(['cluster up', 'cluster down', 'connect standalone', 'connect distributed', 'mirror status']);
  for (const { path, cmd } of leaves.filter((l) => l.path.startsWith('connect ') && !nodeCommands.has(l.path))) {
    const url = cmd.options.find((o) => o.long === '--url');
    assert.equal(url?.envVar, 'CONNECT_URL', `${path} has --url reading CONNECT_URL`);
    assert.ok(cmd.options.some((o) => o.long === '--json'), `${path} has --json`);
    let help = '';
    cmd.configureOutput({ writeOut: (s) => (help += s) });
    cmd.outputHelp();
    assert.match(help, /Examples:\n {2}tributary connect /, `${path} --help has examples`);
  }
  for (const { path, cmd } of leaves.filter((l) => !nodeCommands.has(l.path) && !l.path.startsWith('connect '))) {
    const bootstrap = cmd.options.find((o) => o.long === '--bootstrap');
    assert.ok(bootstrap, `${path} has --bootstrap`);
    assert.equal(bootstrap.envVar, 'TRIBUTARY_BOOTSTRAP', `${path} reads TRIBUTARY_BOOTSTRAP`);
    let help = '';
    cmd.configureOutput({ writeOut: (s) => (help += s) });
    cmd.outputHelp();
    assert.match(help, /Examples:\n {2}tributary /, `${path} --help has examples`);
    if (/ (list|describe|log-dirs|reassignments|elect-leaders|status)$/.test(path)) {
      assert.ok(cmd.options.some((o) => o.long === '--json'), `${path} has --json`);
    }
  }
});
