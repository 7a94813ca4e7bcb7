#!/usr/bin/env node
// `npm start`'s pre-step: build dist/ only when it may be out of date.
//
// Even an incremental `tsc` with nothing to do takes seconds (it loads the
// compiler and re-reads every source to hash it), which dominated
// `npm start`. Here a build is skipped when the stamp written after the last
// successful build is newer than every TypeScript source and tsconfig, and
// dist/src/cli/main.js exists. A fresh clone has no dist/, so it builds.
// A failed build writes no stamp, so the next start builds again.
//
// Then the start-up bundle of `tributary start` (scripts/bundle-start.mjs,
// src/cli/start-bundle.ts) is made again when it is not fresh: after a build,
// or after a `tsc` run by hand, which rewrites the modules it was made from.
// The bin never runs a stale bundle (it falls back to dist/src); this only
// keeps `npm start` on the fast path.
//
//   node scripts/prestart.mjs            # build if needed, bundle if needed
//   node scripts/prestart.mjs --check    # exit 0 when up to date, 1 when a build is needed
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const STAMP = join(root, 'dist', '.build-stamp');
/** What tsconfig.build.json compiles, and the configs that shape the output. */
const SOURCE_DIRS = ['src', 'test', 'bench', 'examples'];
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];
const SOURCE_RE = /\.(ts|mts|cts|tsx)$/;

/** Newest mtime (ms) of the TypeScript files under `dir`; hidden folders (bench/.build) and node_modules skipped. */
function newestSourceMs(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSourceMs(path));
    else if (SOURCE_RE.test(e.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function upToDate() {
  if (!existsSync(STAMP) || !existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) return false;
  const stampMs = statSync(STAMP).mtimeMs;
  for (const f of CONFIG_FILES) {
    const path = join(root, f);
    if (existsSync(path) && statSync(path).mtimeMs > stampMs) return false;
  }
  return SOURCE_DIRS.every((d) => newestSourceMs(join(root, d)) <= stampMs);
}

if (process.argv.includes('--check')) process.exit(upToDate() ? 0 : 1);
if (!upToDate()) {
  // The stamp's time is taken before the build: a source saved during the build triggers the next one.
  // `npm run build` makes the start-up bundle too.
  const startedMs = Date.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(STAMP, `${new Date(startedMs).toISOString()}\n`);
  utimesSync(STAMP, startedMs / 1000, startedMs / 1000);
} else {
  const { freshStartBundle } = await import(pathToFileURL(join(root, 'dist', 'src', 'cli', 'start-bundle.js')).href);
  if (freshStartBundle({}) === null) {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'bundle-start.mjs')], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}
