import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/unit/cli/ -> the repository root and the built bin.
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const SHEBANG = /^#!\/usr\/bin\/env -S node( [^\n]*)?$/;

/** The node flags of the bin's first line. */
function binFlags(): string[] {
  const first = readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '';
  const m = SHEBANG.exec(first);
  assert.ok(m !== null, `the bin's first line runs node through env -S: ${first}`);
  return (m[1] ?? '').trim().split(/\s+/).filter((a) => a !== '');
}

test('the bin runs node with a small young generation and one V8 worker thread per spare core (bench/README.md, "Tail latency: the young generation\'s size", "The e2e tail and the scheduler")', () => {
  assert.deepEqual(binFlags(), ['--max-semi-space-size=2', '--v8-pool-size=0']);
});

test('npm start passes node the same flags as the bin', () => {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> };
  assert.equal(pkg.bin.tributary, 'dist/src/cli/main.js');
  const words = (pkg.scripts.start ?? '').split(/\s+/);
  const entry = words.indexOf('dist/src/cli/main.js');
  assert.equal(words[0], 'node');
  assert.deepEqual(words.slice(1, entry), binFlags());
});

test('the first line works as the kernel runs it: env gets the flags as one argument and splits them', () => {
  const first = readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '';
  const [interpreter, ...rest] = first.slice(2).split(' ');
  // The kernel passes everything after the interpreter as a single argument, then the script.
  const out = execFileSync(interpreter as string, [rest.join(' '), bin, '--version'], { encoding: 'utf8' });
  assert.match(out.trim(), /^\d+\.\d+\.\d+/);
  // And node received the flags: a script started the same way sees them in execArgv.
  const dir = mkdtempSync(join(tmpdir(), 'bin-flags-'));
  try {
    const script = join(dir, 'argv.cjs');
    writeFileSync(script, 'process.stdout.write(JSON.stringify(process.execArgv));');
    assert.deepEqual(JSON.parse(execFileSync(interpreter as string, [rest.join(' '), script], { encoding: 'utf8' })), binFlags());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
