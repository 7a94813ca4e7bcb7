/**
 * sarama (Go), as packaged by Debian (golang-github-shopify-sarama-dev 1.22,
 * golang-go; `.ci/run` installs them), against a broker process: the probe in
 * test/compat/go/sarama-probe is built in GOPATH mode from /usr/share/gocode
 * (no module proxy), then produces with protocol 0.11, reads offsets with
 * ListOffsets v0 as sarama-era lag monitors do, consumes a partition and
 * consumes again in a consumer group.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { run } from '../helpers/run.js';

const GO = process.env['GO'] ?? '/usr/bin/go';
const DEBIAN_GOPATH = '/usr/share/gocode';
/** Kept between runs: the first build compiles sarama and its cgo zstd binding (tens of seconds). */
const GOCACHE = join(tmpdir(), 'tributary-sarama-gocache');

let broker: BrokerProcess;
let work: string;
let probe: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'trib-sarama-'));
  const pkg = join(work, 'src', 'saramaprobe');
  mkdirSync(pkg, { recursive: true });
  copyFileSync(join(repoRoot, 'test', 'compat', 'go', 'sarama-probe', 'main.go'), join(pkg, 'main.go'));
  probe = join(work, 'probe');
  await run(GO, ['build', '-o', probe, 'saramaprobe'], {
    timeoutMs: 240_000,
    env: { GO111MODULE: 'off', GOPATH: `${work}:${DEBIAN_GOPATH}`, GOPROXY: 'off', GOFLAGS: '', GOCACHE },
  });
  broker = await startBroker({ name: 'sarama', overrides: { 'group.initial.rebalance.delay.ms': '0' } });
});

after(async () => {
  await broker?.cleanup();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

test('sarama 1.22: produce, ListOffsets v0, consume, consumer group', { timeout: 120_000 }, async () => {
  const r = await run(probe, [broker.bootstrap, 'sarama-topic', 'sarama-group'], { timeoutMs: 100_000, allowFailure: true });
  const lines = r.stdout.trim().split('\n');
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.deepEqual(lines, [
    'produced 5',
    'listoffsets-v0 newest=5 oldest=0',
    ...[0, 1, 2, 3, 4].map((i) => `consumed m${i}@${i}`),
    ...[0, 1, 2, 3, 4].map((i) => `group got m${i}`),
    'OK',
  ]);
});
