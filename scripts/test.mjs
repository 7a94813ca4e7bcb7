// Runs every compiled test file in one `node --test` process tree so the
// summary line (tests / pass / fail) covers the whole suite.
// Usage: node scripts/test.mjs [unit|integration|chaos|compat ...]
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const suites = process.argv.slice(2);
const roots = (suites.length ? suites : ['unit', 'chaos', 'integration', 'compat']).map((s) => join('dist/test', s));

// Each simulation has its own replay variable (docs/testing.md, "Seeds"): a
// bare SEED would mean nothing to them, and cutting every suite to one seed
// would silently skip their totals checks.
if (process.env.SEED !== undefined) {
  console.error('SEED is not read by the suite: replay one simulation with its own variable (RAFT_SEED, GROUP_SEED, ...; see docs/testing.md)');
  process.exit(1);
}

// A suite named here that has no folder is a mistake (a typo, a build that
// did not emit it): fail rather than run fewer tests than asked.
const missing = roots.filter((root) => !existsSync(root));
if (missing.length > 0) {
  console.error('no such suite folder:', missing.join(', '), '(did the build run?)');
  process.exit(1);
}

function collect(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const files = roots.flatMap((root) => collect(root, []));
if (files.length === 0) {
  console.error('no test files found under', roots.join(', '), '(did the build run?)');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// Not --test-force-exit: with it, a file exits once the tests it knows of
// are done, and tests a file registers later (after an await) are silently
// never run (the storage unit tests counted 221-222 of 236). A file kept
// alive by a leaked client is the watchdog's to stop instead.
// detached: the child leads its own process group, so the watchdog below can
// stop it with every test file and broker it started.
const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: ['inherit', 'pipe', 'inherit'],
  detached: true,
});

// The whole suite takes about 15 minutes on 2 cores; one that runs far past
// that is stuck (a kafkajs consumer left retrying after a failed test once
// kept its file, and so the suite, running past CI's limit). Fail with the
// last lines seen rather than run into CI's own time limit, which reports
// nothing.
const SUITE_TIMEOUT_MIN = Number(process.env.TEST_SUITE_TIMEOUT_MIN ?? '60');
const recentLines = [];
const watchdog = setTimeout(() => {
  process.stdout.write(`\n# the suite ran past ${SUITE_TIMEOUT_MIN} minutes (TEST_SUITE_TIMEOUT_MIN) and is stopped; its last lines were:\n`);
  for (const l of recentLines) process.stdout.write(`#   ${l}\n`);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}, SUITE_TIMEOUT_MIN * 60_000);
watchdog.unref();
// Its own process group no longer gets the terminal's Ctrl-C: pass it on.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  });
}

// The TAP output passes through as it comes. Each failure's block (its
// "not ok" line and YAML details) is also kept and printed again after the
// summary: CI logs are often read from the end, where the failures would
// otherwise be thousands of lines away.
const FAILURE_LINES_MAX = 40;
const failures = [];
let current = null;
const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
const linesDone = new Promise((resolve) => lines.once('close', resolve));
lines.on('line', (line) => {
  process.stdout.write(`${line}\n`);
  recentLines.push(line);
  if (recentLines.length > 30) recentLines.shift();
  const failed = /^(\s*)not ok \d+ - /.exec(line);
  if (failed) {
    current = { indent: failed[1], lines: [line], yamlDone: false };
    failures.push(current);
    return;
  }
  if (current === null) return;
  // The YAML block ends with "  ..."; the test's diagnostics (t.diagnostic:
  // seeds, fault logs, counts) follow it as "# " lines at the test's indent,
  // and are often what explains the failure, so they are kept too.
  if (current.yamlDone && (!line.startsWith(`${current.indent}# `) || line.startsWith(`${current.indent}# Subtest:`))) {
    current = null;
    return;
  }
  if (current.lines.length < FAILURE_LINES_MAX) current.lines.push(line);
  if (line === `${current.indent}  ...`) current.yamlDone = true;
});
const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
clearTimeout(watchdog);
await linesDone;
if (failures.length > 0) {
  process.stdout.write(`\n# ${failures.length} failing test${failures.length === 1 ? '' : 's'} (suites count with their subtests):\n`);
  for (const f of failures) process.stdout.write(`${f.lines.map((l) => `# ${l}`).join('\n')}\n`);
}
process.exit(status ?? 1);
