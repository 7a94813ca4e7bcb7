/**
 * The start-up bundle: `tributary start` loads about 250 compiled modules of
 * ours, and on Node 20 most of its start-up is the ESM loader reading,
 * resolving and compiling them one file at a time (bench/README.md,
 * "Start-up"). scripts/bundle-start.mjs joins program.js and everything it
 * imports (client commands excepted) into a few CommonJS chunks in
 * `dist/src/cli-bundle/` (run with a V8 code cache: bundle-loader.ts), and
 * lists the compiled files it was made from, with their size and mtime, in
 * `inputs.json`.
 *
 * The bin uses the bundle only while it is fresh: every listed file still
 * has the size and mtime it had when the bundle was made. Any build of
 * dist/ (`npm run build`, or `tsc` alone) rewrites those files, so a bundle
 * older than the modules it came from is never run; `npm run build` and
 * `npm start` (scripts/prestart.mjs) make it again. `TRIBUTARY_START_BUNDLE=0`
 * runs the modules of dist/src instead (to debug with their file names).
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The compiled modules: dist/src/ (this module is dist/src/cli/start-bundle.js). */
export const DIST_SRC_DIR_URL = new URL('../', import.meta.url);
/** Where the bundle lives: dist/src/cli-bundle/, beside dist/src/cli/. */
export const START_BUNDLE_DIR_URL = new URL('cli-bundle/', DIST_SRC_DIR_URL);
/** The bundle's entry chunk (exports what program.js exports; scripts/bundle-start.mjs names it). */
export const START_BUNDLE_ENTRY = 'start.cjs';
/** The list of inputs, written last: a bundle without it is incomplete. */
export const START_BUNDLE_INPUTS = 'inputs.json';

/** inputs.json: each compiled file the bundle holds, relative to dist/src, with its size and mtime then. */
export interface StartBundleInputs {
  readonly format: 1;
  readonly inputs: readonly (readonly [path: string, size: number, mtimeMs: number])[];
}

/** Where to look (tests give temporary folders); both URLs end with a slash. */
export interface StartBundleDirs {
  readonly bundle: URL;
  readonly src: URL;
}

/**
 * The URL of the bundle's entry when the bundle exists and is fresh, else
 * null. About 360 `stat` calls: a few milliseconds, against the 100-200 ms of
 * loading the modules one by one.
 */
export function freshStartBundle(env: NodeJS.ProcessEnv = process.env, dirs: StartBundleDirs = { bundle: START_BUNDLE_DIR_URL, src: DIST_SRC_DIR_URL }): URL | null {
  if (env['TRIBUTARY_START_BUNDLE'] === '0') return null;
  let manifest: StartBundleInputs;
  try {
    manifest = JSON.parse(readFileSync(new URL(START_BUNDLE_INPUTS, dirs.bundle), 'utf8')) as StartBundleInputs;
  } catch {
    return null; // no bundle (rollup not installed, or not made yet), or an unreadable list
  }
  if (manifest.format !== 1 || !Array.isArray(manifest.inputs) || manifest.inputs.length === 0) return null;
  const srcDir = fileURLToPath(dirs.src);
  for (const [path, size, mtimeMs] of manifest.inputs) {
    const stat = statSync(srcDir + path, { throwIfNoEntry: false });
    if (stat === undefined || stat.size !== size || stat.mtimeMs !== mtimeMs) return null;
  }
  return new URL(START_BUNDLE_ENTRY, dirs.bundle);
}
