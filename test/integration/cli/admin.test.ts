/**
 * `tributary config|cluster|records ...` end to end against a real broker
 * process on loopback, with their output checked:
 *
 * config set/describe/delete round trip on a topic (table and JSON,
 * --validate-only, --all), a bad value refused with exit 1 naming the key,
 * the cluster-wide broker defaults, a broker's own configs; cluster describe
 * and log-dirs; records delete (--before, then --all) after which
 * `consume --offset earliest` starts at the new log start; elect-leaders and
 * reassignments on one node; TRIBUTARY_BOOTSTRAP; usage errors exit 2.
 *
 * Every child process is bounded (run.ts timeouts) and the broker is
 * removed in `after`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { brokerMain, startBroker, type BrokerProcess } from '../../helpers/broker-process.js';
import { run as runTool, type RunResult } from '../../helpers/run.js';

const TOPIC = 'audit';
const RECORDS_TOPIC = 'trail';

interface ConfigJson {
  type: string;
  name: string;
  configs: { name: string; value: string | null; source: string; readOnly: boolean; isSensitive: boolean; synonyms: { name: string; source: string }[] }[];
  error: string | null;
}

describe('tributary config, cluster and records against a real broker', () => {
  let broker: BrokerProcess | null = null;
  let bootstrap: string[] = [];

  const cli = (args: readonly string[], options: { input?: string; env?: Record<string, string>; noBootstrap?: boolean } = {}): Promise<RunResult> =>
    runTool(process.execPath, [brokerMain, ...args, ...(options.noBootstrap === true ? [] : bootstrap)], {
      allowFailure: true,
      timeoutMs: 60_000,
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.env === undefined ? {} : { env: options.env }),
    });
  const ok = async (args: readonly string[], options: { input?: string } = {}): Promise<RunResult> => {
    const r = await cli(args, options);
    assert.equal(r.code, 0, `tributary ${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r;
  };
  const json = async <T>(args: readonly string[]): Promise<T> => JSON.parse((await ok([...args, '--json'])).stdout) as T;
  const topicConfig = async (extra: readonly string[] = []): Promise<ConfigJson> => json<ConfigJson>(['config', 'describe', '--topic', TOPIC, ...extra]);

  before(async () => {
    broker = await startBroker({ name: 'cli-admin' });
    bootstrap = ['--bootstrap', broker.bootstrap];
    await ok(['topic', 'create', TOPIC, '--partitions', '2']);
    await ok(['topic', 'create', RECORDS_TOPIC, '--partitions', '3']);
  });

  after(async () => {
    await broker?.cleanup();
  });

  test('config describe: nothing set on a new topic; --all lists the defaults', async () => {
    const table = await ok(['config', 'describe', '--topic', TOPIC]);
    assert.equal(table.stdout, `No configs set on topic ${TOPIC} (--all shows the defaults).\n`);
    const all = await topicConfig(['--all']);
    assert.equal(all.error, null);
    const retention = all.configs.find((c) => c.name === 'retention.ms');
    assert.equal(retention?.source, 'DEFAULT_CONFIG');
    assert.ok(all.configs.length >= 10, `${all.configs.length} keys`);
    assert.ok(retention?.synonyms.some((s) => s.name === 'log.retention.ms') === true, 'synonyms in JSON');
  });

  test('config set, describe (table and JSON), delete: a round trip', async () => {
    const set = await ok(['config', 'set', '--topic', TOPIC, 'retention.ms=3600000', 'max.message.bytes=2097152']);
    assert.equal(set.stdout, `Set retention.ms, max.message.bytes on topic ${TOPIC}.\n`);

    const table = await ok(['config', 'describe', '--topic', TOPIC]);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+VALUE\s+SOURCE\s+READ-ONLY\s+SENSITIVE$/);
    assert.ok(lines.some((l) => /^retention\.ms\s+3600000\s+DYNAMIC_TOPIC_CONFIG\s+no\s+no$/.test(l)), table.stdout);
    assert.ok(lines.some((l) => /^max\.message\.bytes\s+2097152\s+DYNAMIC_TOPIC_CONFIG\s+no\s+no$/.test(l)), table.stdout);
    assert.ok(!lines.some((l) => /DEFAULT_CONFIG/.test(l)), 'defaults only with --all');

    const described = await topicConfig();
    assert.deepEqual(
      described.configs.filter((c) => c.source === 'DYNAMIC_TOPIC_CONFIG').map((c) => [c.name, c.value]),
      [
        ['max.message.bytes', '2097152'],
        ['retention.ms', '3600000'],
      ],
    );

    const validated = await ok(['config', 'set', '--topic', TOPIC, 'retention.ms=1000', '--validate-only']);
    assert.match(validated.stdout, /^Validated, nothing changed: set retention\.ms on topic audit\.$/m);
    const one = await topicConfig(['retention.ms']);
    assert.deepEqual(
      one.configs.map((c) => [c.name, c.value]),
      [['retention.ms', '3600000']],
      'validate-only changed nothing; naming a key describes just that key',
    );

    const deleted = await ok(['config', 'delete', '--topic', TOPIC, 'retention.ms']);
    assert.equal(deleted.stdout, `Deleted retention.ms from topic ${TOPIC} (back to the inherited value).\n`);
    const after = await topicConfig(['retention.ms']);
    assert.equal(after.configs[0]?.source, 'DEFAULT_CONFIG');
    assert.equal(after.configs[0]?.value, '604800000');
    await ok(['config', 'delete', '--topic', TOPIC, 'max.message.bytes']);
  });

  test('config append and subtract change list configs', async () => {
    await ok(['config', 'append', '--topic', TOPIC, 'cleanup.policy=compact']);
    const appended = await topicConfig(['cleanup.policy']);
    assert.deepEqual(new Set(appended.configs[0]?.value?.split(',')), new Set(['delete', 'compact']));
    await ok(['config', 'subtract', '--topic', TOPIC, 'cleanup.policy=compact']);
    assert.equal((await topicConfig(['cleanup.policy'])).configs[0]?.value, 'delete');
    await ok(['config', 'delete', '--topic', TOPIC, 'cleanup.policy']);
  });

  test('a bad value or an unknown key exits 1 with the broker message naming the key', async () => {
    const bad = await cli(['config', 'set', '--topic', TOPIC, 'retention.ms=soon']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /INVALID_CONFIG/);
    assert.match(bad.stderr, /retention\.ms/);
    assert.equal(bad.stdout, '');
    const unknown = await cli(['config', 'set', '--topic', TOPIC, 'retention.msec=5']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /INVALID_CONFIG.*retention\.msec/);
    const missingTopic = await cli(['config', 'describe', '--topic', 'no-such-topic']);
    assert.equal(missingTopic.code, 1);
    assert.match(missingTopic.stderr, /UNKNOWN_TOPIC_OR_PARTITION/);
    assert.equal((await topicConfig()).configs.length, 0, 'nothing was changed');
  });

  test('broker configs: cluster-wide defaults round trip; a broker lists its own keys', async () => {
    await ok(['config', 'set', '--broker-defaults', 'log.retention.ms=7200000']);
    const defaults = await json<ConfigJson>(['config', 'describe', '--broker-defaults']);
    assert.deepEqual(
      defaults.configs.map((c) => [c.name, c.value, c.source]),
      [['log.retention.ms', '7200000', 'DYNAMIC_DEFAULT_BROKER_CONFIG']],
    );
    const inherited = await topicConfig(['retention.ms']);
    assert.equal(inherited.configs[0]?.value, '7200000', 'a topic inherits the dynamic default');
    assert.equal(inherited.configs[0]?.source, 'DYNAMIC_DEFAULT_BROKER_CONFIG');
    await ok(['config', 'delete', '--broker-defaults', 'log.retention.ms']);
    const none = await ok(['config', 'describe', '--broker-defaults']);
    assert.equal(none.stdout, 'No configs set on broker defaults.\n');

    const cluster = await json<{ brokers: { nodeId: number }[] }>(['cluster', 'describe']);
    const nodeId = cluster.brokers[0]?.nodeId ?? -1;
    const own = await json<ConfigJson>(['config', 'describe', '--broker', String(nodeId), '--all']);
    assert.equal(own.name, String(nodeId));
    const logDirs = own.configs.find((c) => c.name === 'log.dirs');
    assert.equal(logDirs?.readOnly, true);
    assert.equal(logDirs?.source, 'STATIC_BROKER_CONFIG');
    const table = await ok(['config', 'describe', '--broker', String(nodeId)]);
    assert.ok(table.stdout.split('\n').some((l) => /^log\.dirs\s+\S+\s+STATIC_BROKER_CONFIG\s+yes\s+no$/.test(l)), table.stdout);
  });

  test('cluster describe: cluster id, controller and the broker, as a table and JSON', async () => {
    const d = await json<{ clusterId: string; controllerId: number; brokers: { nodeId: number; host: string; port: number; rack: string | null }[] }>(['cluster', 'describe']);
    assert.ok(d.clusterId.length > 0);
    assert.equal(d.brokers.length, 1);
    assert.equal(d.brokers[0]?.port, broker?.port);
    assert.equal(d.brokers[0]?.host, '127.0.0.1');
    assert.equal(d.controllerId, d.brokers[0]?.nodeId);
    const table = await ok(['cluster', 'describe']);
    const lines = table.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `ClusterId: ${d.clusterId}\tController: ${d.controllerId}\tBrokers: 1`);
    assert.match(lines[1] ?? '', /^BROKER\s+HOST\s+PORT\s+RACK\s+CONTROLLER$/);
    assert.match(lines[2] ?? '', new RegExp(`^${d.controllerId}\\s+127\\.0\\.0\\.1\\s+${broker?.port}\\s+-\\s+yes$`));
  });

  test('cluster log-dirs: the data directory with the size of each partition', async () => {
    await ok(['produce', RECORDS_TOPIC, '--partition', '0'], { input: `${Array.from({ length: 10 }, (_, i) => `record-${i}`).join('\n')}\n` });
    const dirs = await json<{ nodeId: number; error: string | null; logDirs: { path: string; totalBytes: number | null; partitions: { topic: string; partition: number; sizeBytes: number }[] }[] }[]>([
      'cluster',
      'log-dirs',
    ]);
    assert.equal(dirs.length, 1);
    const dir = dirs[0]?.logDirs[0];
    assert.equal(realpathSync(dir?.path ?? ''), realpathSync(broker?.dataDir ?? ''));
    const trail = dir?.partitions.filter((p) => p.topic === RECORDS_TOPIC) ?? [];
    assert.deepEqual(
      trail.map((p) => p.partition),
      [0, 1, 2],
    );
    assert.ok((trail[0]?.sizeBytes ?? 0) > 0, 'partition 0 holds the records');
    assert.equal(trail[1]?.sizeBytes, 0);
    const filtered = await json<{ logDirs: { partitions: { topic: string }[] }[] }[]>(['cluster', 'log-dirs', '--topic', TOPIC]);
    assert.ok(filtered[0]?.logDirs[0]?.partitions.every((p) => p.topic === TOPIC));
    const table = await ok(['cluster', 'log-dirs', '--topic', RECORDS_TOPIC]);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^Broker: \d+\tLogDir: \S+\tPartitions: 3\tSize: \d+ B\tTotal: /);
    assert.match(lines[1] ?? '', /^TOPIC\s+PARTITION\s+SIZE\s+BYTES\s+OFFSET-LAG\s+FUTURE$/);
    assert.match(lines[2] ?? '', new RegExp(`^${RECORDS_TOPIC}\\s+0\\s+\\d+ B\\s+${trail[0]?.sizeBytes}\\s+0\\s+no$`));
  });

  test('records delete --before moves the log start; consume --offset earliest starts there', async () => {
    const deleted = await ok(['records', 'delete', RECORDS_TOPIC, '--partition', '0', '--before', '4']);
    assert.equal(deleted.stdout, `TOPIC  PARTITION  LOG-START-OFFSET  ERROR\n${RECORDS_TOPIC}  0          4                 -\n`);
    assert.match(deleted.stderr, /Deleted the records below offset 4 in 1 partition of trail\./);
    const consumed = await ok(['consume', RECORDS_TOPIC, '--partition', '0', '--offset', 'earliest', '--print-offset', '--timeout-ms', '1500']);
    const lines = consumed.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 6, consumed.stdout);
    assert.equal(lines[0], '0:4\trecord-4');
    assert.equal(lines[5], '0:9\trecord-9');
  });

  test('records delete --all empties every partition up to the high watermark', async () => {
    const results = await json<{ topic: string; partition: number; lowWatermark: number; error: string | null }[]>(['records', 'delete', RECORDS_TOPIC, '--all']);
    assert.deepEqual(
      results.map((r) => [r.partition, r.lowWatermark, r.error]),
      [
        [0, 10, null],
        [1, 0, null],
        [2, 0, null],
      ],
    );
    const consumed = await ok(['consume', RECORDS_TOPIC, '--offset', 'earliest', '--timeout-ms', '1000']);
    assert.equal(consumed.stdout, '');
    assert.match(consumed.stderr, /Processed a total of 0 records/);
  });

  test('records delete: an offset above the high watermark exits 1; misuse exits 2', async () => {
    const above = await cli(['records', 'delete', RECORDS_TOPIC, '--partition', '1', '--before', '500']);
    assert.equal(above.code, 1);
    assert.match(above.stdout, /trail\s+1\s+-\s+OFFSET_OUT_OF_RANGE/);
    assert.match(above.stderr, /OFFSET_OUT_OF_RANGE/);
    const neither = await cli(['records', 'delete', RECORDS_TOPIC]);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /--before OFFSET and --all/);
    const both = await cli(['records', 'delete', RECORDS_TOPIC, '--all', '--before', '1']);
    assert.equal(both.code, 2);
    const badPartition = await cli(['records', 'delete', RECORDS_TOPIC, '--partition', 'x', '--all']);
    assert.equal(badPartition.code, 2);
    const missingPartition = await cli(['records', 'delete', RECORDS_TOPIC, '--partition', '9', '--all']);
    assert.equal(missingPartition.code, 1);
    assert.match(missingPartition.stderr, /partition 9 does not exist/);
  });

  test('cluster elect-leaders and reassignments on one node', async () => {
    const elected = await ok(['cluster', 'elect-leaders', '--topic', `${TOPIC}:0`]);
    assert.match(elected.stdout, /^audit\s+0\s+not needed\s+-$/m);
    const all = await ok(['cluster', 'elect-leaders']);
    assert.equal(all.stdout, 'No partition needed an election.\n');
    const reassignments = await ok(['cluster', 'reassignments']);
    assert.equal(reassignments.stdout, 'No partition reassignments in progress.\n');
    assert.deepEqual(await json<unknown[]>(['cluster', 'reassignments']), []);
  });

  test('TRIBUTARY_BOOTSTRAP is the default of --bootstrap', async () => {
    const r = await cli(['cluster', 'describe', '--json'], { env: { TRIBUTARY_BOOTSTRAP: broker?.bootstrap ?? '' }, noBootstrap: true });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { brokers: { port: number }[] }).brokers[0]?.port, broker?.port);
    const flagWins = await cli(['cluster', 'describe'], { env: { TRIBUTARY_BOOTSTRAP: 'bad address:x' } });
    assert.equal(flagWins.code, 0, '--bootstrap overrides the environment');
  });

  test('config usage errors exit 2; --help shows examples', async () => {
    const noResource = await cli(['config', 'describe']);
    assert.equal(noResource.code, 2);
    assert.match(noResource.stderr, /exactly one of --topic T, --broker ID, --broker-defaults/);
    const two = await cli(['config', 'describe', '--topic', TOPIC, '--broker-defaults']);
    assert.equal(two.code, 2);
    const noValue = await cli(['config', 'set', '--topic', TOPIC, 'retention.ms']);
    assert.equal(noValue.code, 2);
    assert.match(noValue.stderr, /expected key=value/);
    const deleteWithValue = await cli(['config', 'delete', '--topic', TOPIC, 'retention.ms=1']);
    assert.equal(deleteWithValue.code, 2);
    const badBroker = await cli(['config', 'describe', '--broker', 'one']);
    assert.equal(badBroker.code, 2);
    for (const command of [['config', 'set'], ['cluster', 'log-dirs'], ['records', 'delete']]) {
      const help = await cli([...command, '--help'], { noBootstrap: true });
      assert.equal(help.code, 0);
      assert.match(help.stdout, /Examples:\n {2}tributary /);
      assert.match(help.stdout, /env: TRIBUTARY_BOOTSTRAP/);
    }
  });
});
