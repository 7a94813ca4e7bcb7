// Runs every compiled test file in one `node --test` process tree so the
// summary line (tests / pass / fail) covers the whole suite.
// Usage: node scripts/test.mjs [unit|integration|chaos|compat ...]
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const suites = process.argv.slice(2);
const roots = (suites.length ? suites : ['unit', 'chaos', 'integration', 'compat']).map((s) => join('dist/test', s));

function collect(dir, out) {
  if (!existsSync(dir)) return out;
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
const result = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
