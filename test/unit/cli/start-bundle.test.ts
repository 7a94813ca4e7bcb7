// The bin runs the start-up bundle only while every compiled module it was made from is unchanged
// (src/cli/start-bundle.ts). Here on a temporary "dist/src" and "cli-bundle" pair.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freshStartBundle, START_BUNDLE_ENTRY, START_BUNDLE_INPUTS, type StartBundleDirs, type StartBundleInputs } from '../../../src/cli/start-bundle.js';

interface Fixture {
  readonly root: string;
  readonly dirs: StartBundleDirs;
  /** Writes inputs.json listing the given modules (paths under src/) as they are now. */
  manifest(paths: readonly string[]): void;
}

function withFixture(fn: (f: Fixture) => void): void {
  const root = mkdtempSync(join(tmpdir(), 'trib-start-bundle-'));
  try {
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    mkdirSync(join(root, 'src', 'cli-bundle'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli', 'program.js'), 'export const a = 1;\n');
    writeFileSync(join(root, 'src', 'cli', 'start.js'), 'export const b = 2;\n');
    writeFileSync(join(root, 'src', 'cli-bundle', START_BUNDLE_ENTRY), 'export {};\n');
    const dirs = { src: pathToFileURL(join(root, 'src') + '/'), bundle: pathToFileURL(join(root, 'src', 'cli-bundle') + '/') };
    fn({
      root,
      dirs,
      manifest(paths) {
        const inputs = paths.map((p) => {
          const s = statSync(join(root, 'src', p));
          return [p, s.size, s.mtimeMs] as const;
        });
        const m: StartBundleInputs = { format: 1, inputs };
        writeFileSync(join(root, 'src', 'cli-bundle', START_BUNDLE_INPUTS), JSON.stringify(m));
      },
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const MODULES = ['cli/program.js', 'cli/start.js'];

test('a bundle whose modules are unchanged is fresh: its entry is returned', () => {
  withFixture((f) => {
    f.manifest(MODULES);
    assert.equal(freshStartBundle({}, f.dirs)?.href, new URL(START_BUNDLE_ENTRY, f.dirs.bundle).href);
  });
});

test('a module rewritten after the bundle was made (a new mtime, same content) makes it stale', () => {
  withFixture((f) => {
    f.manifest(MODULES);
    const later = new Date(statSync(join(f.root, 'src', 'cli', 'start.js')).mtimeMs + 5_000);
    utimesSync(join(f.root, 'src', 'cli', 'start.js'), later, later);
    assert.equal(freshStartBundle({}, f.dirs), null);
  });
});

test('a module of another size, or gone, makes it stale', () => {
  withFixture((f) => {
    f.manifest(MODULES);
    const path = join(f.root, 'src', 'cli', 'program.js');
    const { mtime } = statSync(path);
    writeFileSync(path, 'export const a = 10;\n');
    utimesSync(path, mtime, mtime); // same mtime, one byte more
    assert.equal(freshStartBundle({}, f.dirs), null);
  });
  withFixture((f) => {
    f.manifest(MODULES);
    rmSync(join(f.root, 'src', 'cli', 'start.js'));
    assert.equal(freshStartBundle({}, f.dirs), null);
  });
});

test('no inputs.json (no rollup, or a bundle cut short before writing it), or an empty or unreadable one: not used', () => {
  withFixture((f) => {
    assert.equal(freshStartBundle({}, f.dirs), null);
    f.manifest([]);
    assert.equal(freshStartBundle({}, f.dirs), null);
    writeFileSync(join(f.root, 'src', 'cli-bundle', START_BUNDLE_INPUTS), '{"format":1,"inputs":[["cli/program.js"');
    assert.equal(freshStartBundle({}, f.dirs), null);
  });
});

test('TRIBUTARY_START_BUNDLE=0 turns a fresh bundle off', () => {
  withFixture((f) => {
    f.manifest(MODULES);
    assert.equal(freshStartBundle({ TRIBUTARY_START_BUNDLE: '0' }, f.dirs), null);
    assert.notEqual(freshStartBundle({ TRIBUTARY_START_BUNDLE: '1' }, f.dirs), null);
  });
});
