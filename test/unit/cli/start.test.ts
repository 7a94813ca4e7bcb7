import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { collectOverride, logFormatFor, parseLogFormat } from '../../../src/cli/start.js';

const distRoot = resolve(import.meta.dirname, '../../..');
const repoRoot = resolve(distRoot, '..');
const mainJs = join(distRoot, 'src', 'cli', 'main.js');
const startJs = join(distRoot, 'src', 'cli', 'start.js');
const RUN_TIMEOUT_MS = 20_000;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [mainJs, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--override without key=value is a usage error (exit 2) that shows the expected form', () => {
  const r = cli('start', '--override', 'nonsense');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /argument 'nonsense' is invalid\. expected key=value/);
  assert.match(r.stderr, /tributary start --help/);
});

test('invalid config: exit 2, every bad key listed with what to do, nothing bound or created', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trib-start-'));
  try {
    const dataDir = join(dir, 'data');
    const r = cli('start', '--override', `log.dirs=${dataDir}`, '--override', 'log.retention.ms=abc', '--override', 'num.partitons=3',
      '--override', 'listeners=PLAINTEXT://127.0.0.1:99999', '--override', 'auto.create.topics.enable=sometimes');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Invalid configuration \(4 problems\); fix these and try again:/);
    assert.match(r.stderr, /- log\.retention\.ms: expected an integer >= -1, got "abc" \[--override\]/);
    assert.match(r.stderr, /- num\.partitons: unknown broker config key; did you mean "num\.partitions"\?/);
    assert.match(r.stderr, /- listeners: .*port 99999 is not in 0\.\.65535/);
    assert.match(r.stderr, /- auto\.create\.topics\.enable: expected true or false/);
    assert.equal(existsSync(dataDir), false, 'the data dir must not be created');
    assert.equal(r.stdout, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad key in a config file is reported with file and line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trib-start-'));
  try {
    const file = join(dir, 'server.properties');
    spawnSync('sh', ['-c', `printf 'node.id=1\\nlog.segment.bytes=10\\n' > '${file}'`]);
    const r = cli('start', file);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`log\\.segment\\.bytes: expected an integer >= 14, got "10" \\[${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2\\]`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing config file: exit 2 and which path', () => {
  const r = cli('start', '--config', '/nonexistent/server.properties');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /\/nonexistent\/server\.properties: cannot read the config file \(no such file\)/);
});

test('the config file given twice differently is a usage error', () => {
  const r = cli('start', 'config/dev.properties', '--config', 'config/server.properties');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /give the config file once/);
});

test('unknown command and unknown option: exit 2 with a pointer to --help', () => {
  const unknown = cli('strat');
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command 'strat'/);
  assert.match(unknown.stderr, /Did you mean start\?/);
  assert.match(unknown.stderr, /tributary --help/);
  const option = cli('start', '--confg', 'x');
  assert.equal(option.code, 2);
  assert.match(option.stderr, /unknown option '--confg'/);
});

test('--version prints package.json\'s version; --help shows examples; both exit 0', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  const v = cli('--version');
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), pkg.version);
  const h = cli('start', '--help');
  assert.equal(h.code, 0);
  assert.match(h.stdout, /Examples:/);
  assert.match(h.stdout, /--override <key=value>/);
});

test('start --check validates and prints the effective config without starting', () => {
  const r = cli('start', 'config/dev.properties', '--check', '--override', 'log.retention.minutes=5');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^# configuration is valid/);
  assert.match(r.stdout, /^log\.retention\.ms=300000 {3}# from log\.retention\.minutes$/m);
  assert.match(r.stdout, /^listeners=PLAINTEXT:\/\/127\.0\.0\.1:9092 {3}# set$/m);
});

test('collectOverride splits at the first = and accumulates', () => {
  assert.deepEqual(collectOverride('b=x=y', collectOverride('a=1', undefined)), { a: '1', b: 'x=y' });
  assert.throws(() => collectOverride('=1', undefined), /expected key=value/);
});

test('log format: --log-format wins; else pretty on a terminal and JSON otherwise; anything else is a usage error', () => {
  assert.equal(logFormatFor(undefined, true), 'pretty');
  assert.equal(logFormatFor(undefined, false), 'json');
  assert.equal(logFormatFor('json', true), 'json');
  assert.equal(logFormatFor('pretty', false), 'pretty');
  assert.equal(parseLogFormat('json'), 'json');
  assert.equal(parseLogFormat('pretty'), 'pretty');
  assert.throws(() => parseLogFormat('text'), /--log-format must be json or pretty, got "text"/);
});

/** Runs `start` with a fake broker in a child process (real signals, real exit codes). */
function startWithFakeBroker(stopBehaviour: 'resolve' | 'hang', extraArgs: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `
    import { Command } from 'commander';
    import { registerStartCommand } from ${JSON.stringify(pathToFileURL(startJs).href)};
    const program = new Command('tributary').exitOverride();
    registerStartCommand(program, { startBroker: async (config, { logger }) => {
      const server = setInterval(() => {}, 1000); // stands for the listening sockets
      return {
        boundAddresses: config.listeners.map((l) => ({ name: l.name, host: l.host, port: 4242 })),
        stop: (reason) => ${stopBehaviour === 'resolve' ? "new Promise((r) => setTimeout(() => { clearInterval(server); logger.info({ reason }, 'fake stopped'); r(); }, 50))" : 'new Promise(() => {})'},
      };
    } });
    await program.parseAsync(['node', 'tributary', 'start', '--override', 'listeners=PLAINTEXT://127.0.0.1:0', '--override', 'num.io.threads=4', ...${JSON.stringify(extraArgs)}]);
  `;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let signals = 0;
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`timed out; stdout: ${stdout} stderr: ${stderr}`)); }, RUN_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (signals === 0 && stdout.includes('listening on')) {
        signals++;
        child.kill('SIGTERM');
        if (stopBehaviour === 'hang') setTimeout(() => child.kill('SIGINT'), 200);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr: `${stderr}${signal === null ? '' : `(killed by ${signal})`}` });
    });
  });
}

test('start prints one startup line, stops gracefully on SIGTERM and exits 0', async () => {
  const r = await startWithFakeBroker('resolve');
  assert.equal(r.code, 0, r.stderr);
  const entries = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string; listeners?: unknown; dataDir?: string });
  assert.ok(entries.some((e) => e.level === 40 && /num\.io\.threads .* ignored/.test(e.msg)), 'the ignored key is logged as a warning');
  const started = entries.find((e) => e.msg.includes('listening on'));
  assert.match(started?.msg ?? '', /^Tributary broker 1 listening on PLAINTEXT:\/\/127\.0\.0\.1:4242; data in \//);
  assert.ok(typeof started?.dataDir === 'string');
  assert.ok(entries.some((e) => e.msg === 'fake stopped' && e.reason === 'SIGTERM'));
  assert.equal(entries.at(-1)?.msg, 'shutdown complete');
});

test('start --log-format pretty writes readable lines to a pipe; --log-format json (the pipe default) JSON', async () => {
  const pretty = await startWithFakeBroker('resolve', ['--log-format', 'pretty']);
  assert.equal(pretty.code, 0, pretty.stderr);
  const lines = pretty.stdout.trim().split('\n');
  assert.ok(lines.length >= 3, pretty.stdout);
  for (const l of lines) assert.match(l, /^\d\d:\d\d:\d\d\.\d{3} (INFO |WARN ) \S/, l);
  assert.ok(lines.some((l) => / INFO  Tributary broker 1 listening on PLAINTEXT:\/\/127\.0\.0\.1:4242; data in \/\S* .*nodeId=1/.test(l)), pretty.stdout);
  const json = await startWithFakeBroker('resolve', ['--log-format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  for (const l of json.stdout.trim().split('\n')) assert.equal(typeof (JSON.parse(l) as { msg: unknown }).msg, 'string');
});

test('a second signal during shutdown exits at once', async () => {
  const r = await startWithFakeBroker('hang');
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stdout, /SIGINT again: exiting without finishing the shutdown/);
});
