/**
 * FileHandlePool / PooledFileHandle: descriptors opened on use, the least
 * recently used closed beyond the bound and reopened transparently, POSIX
 * semantics kept across rename and unlink (pinning), and EMFILE turned into
 * room (relief) or a retriable StorageError, never a crash. The storage
 * suites run on a pool of OPEN_FILES_MAX_MIN as well ('node-lru' in fs-env.ts).
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeFileSystem } from '../../../src/storage/fs.js';
import { OPEN_FILES_MAX_MIN, type PooledFileHandle } from '../../../src/storage/file-handle-pool.js';

let root = '';
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tributary-fdpool-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function ownDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

function readString(h: PooledFileHandle | ReturnType<NodeFileSystem['open']>, length: number, position = 0): string {
  const buf = Buffer.alloc(length);
  const n = h.read(buf, 0, length, position);
  return buf.subarray(0, n).toString();
}

describe('FileHandlePool', () => {
  test('holds at most openFilesMax descriptors; evicted handles reopen on use with their data', () => {
    const fs = new NodeFileSystem({ openFilesMax: OPEN_FILES_MAX_MIN });
    const before = ownDescriptors();
    const files = Array.from({ length: 40 }, (_, i) => fs.open(join(root, `f${i}`), { create: true }));
    for (const [i, f] of files.entries()) f.append(Buffer.from(`file ${i};`));
    assert.ok(fs.handles.openCount <= OPEN_FILES_MAX_MIN);
    assert.ok(ownDescriptors() - before <= OPEN_FILES_MAX_MIN, 'the process holds no more descriptors than the bound');
    assert.ok(fs.handles.evictions >= 40 - OPEN_FILES_MAX_MIN);
    // Every file, including the long-evicted first ones, reads back and keeps its length.
    for (const [i, f] of files.entries()) {
      assert.equal(f.size(), `file ${i};`.length);
      assert.equal(readString(f, 64), `file ${i};`);
    }
    // Appends, truncation and fsync through reopened descriptors.
    const first = files[0] as PooledFileHandle;
    assert.equal(first.isOpen, false, 'the oldest was evicted by the reads after it');
    first.append(Buffer.from('more'));
    first.sync();
    first.truncate(4);
    assert.equal(readString(first, 64), 'file');
    for (const f of files) f.close();
    assert.equal(fs.handles.openCount, 0);
    assert.equal(ownDescriptors(), before, 'close releases every descriptor');
  });

  test('a handle used between evictions stays most recently used (the LRU order follows use, not opening)', () => {
    const fs = new NodeFileSystem({ openFilesMax: OPEN_FILES_MAX_MIN });
    const hot = fs.open(join(root, 'hot'), { create: true }) as PooledFileHandle;
    hot.append(Buffer.from('x'));
    for (let i = 0; i < 50; i++) {
      fs.open(join(root, `cold${i}`), { create: true }).close();
      fs.open(join(root, `cold-kept${i}`), { create: true });
      hot.read(Buffer.alloc(1), 0, 1, 0);
      assert.equal(hot.isOpen, true, `hot stays open at ${i}`);
    }
  });

  test('a handle used again while it is the newest stays evictable; evicted, its next use puts it back in the LRU', () => {
    const fs = new NodeFileSystem({ openFilesMax: OPEN_FILES_MAX_MIN });
    const a = fs.open(join(root, 'newest'), { create: true }) as PooledFileHandle;
    a.append(Buffer.from('a'));
    a.read(Buffer.alloc(1), 0, 1, 0); // already the newest: touch changes nothing
    fs.handles.relieve();
    assert.equal(a.isOpen, false, 'evicted: the only idle descriptor');
    a.read(Buffer.alloc(1), 0, 1, 0); // reopened while still the last one marked newest
    assert.equal(a.isOpen, true, 'reopened on use');
    assert.equal(fs.handles.openCount, 1);
    fs.handles.relieve();
    assert.equal(a.isOpen, false, 'back in the LRU after its reopening, so evicted again');
    a.close();
  });

  test('unlink and rename-over keep a live handle on its own file, evicted or not (POSIX semantics)', () => {
    const fs = new NodeFileSystem({ openFilesMax: OPEN_FILES_MAX_MIN });
    const target = join(root, 'seg.log');
    const old = fs.open(target, { create: true }) as PooledFileHandle;
    old.append(Buffer.from('old bytes'));
    // Evict it, then replace the path as the cleaner's swap does.
    for (let i = 0; i < 2 * OPEN_FILES_MAX_MIN; i++) fs.open(join(root, `x${i}`), { create: true });
    assert.equal(old.isOpen, false);
    writeFileSync(`${target}.cleaned`, 'new bytes!');
    fs.rename(`${target}.cleaned`, target);
    assert.equal(old.pinned, true);
    assert.equal(readString(old, 64), 'old bytes', 'the old handle still reads the replaced file');
    const fresh = fs.open(target);
    assert.equal(readString(fresh, 64), 'new bytes!');
    // Pinned handles are not evicted by later opens.
    for (let i = 0; i < 2 * OPEN_FILES_MAX_MIN; i++) fs.open(join(root, `y${i}`), { create: true });
    assert.equal(old.isOpen, true);
    old.close();
    // Unlink of an evicted file: the handle still reads it.
    const doomed = fs.open(join(root, 'doomed'), { create: true }) as PooledFileHandle;
    doomed.append(Buffer.from('still here'));
    for (let i = 0; i < 2 * OPEN_FILES_MAX_MIN; i++) fs.open(join(root, `z${i}`), { create: true });
    fs.unlink(join(root, 'doomed'));
    assert.equal(readString(doomed, 64), 'still here');
    doomed.close();
  });

  test('renaming a directory pins the handles under it (a log being deleted is renamed first)', () => {
    const fs = new NodeFileSystem({ openFilesMax: OPEN_FILES_MAX_MIN });
    const dir = join(root, 'topic-0');
    mkdirSync(dir);
    const h = fs.open(join(dir, 'a.log'), { create: true }) as PooledFileHandle;
    h.append(Buffer.from('abc'));
    for (let i = 0; i < 2 * OPEN_FILES_MAX_MIN; i++) fs.open(join(root, `x${i}`), { create: true });
    fs.rename(dir, `${dir}.1-delete`);
    assert.equal(readString(h, 8), 'abc');
    h.close();
  });

  test('out of descriptors: the pool closes idle ones and retries; with nothing to close it throws ERR_TRIB_STORAGE_FILE_LIMIT', () => {
    // A child with `ulimit -n 64` uses up the rest of its descriptors with plain opens, then asks the pool for more.
    const poolUrl = new URL('../../../src/storage/fs.js', import.meta.url).href;
    const script = `
      import { openSync, writeFileSync } from 'node:fs';
      import { join } from 'node:path';
      const { NodeFileSystem } = await import(${JSON.stringify(poolUrl)});
      const dir = process.argv[1];
      const fs = new NodeFileSystem({ openFilesMax: 1000 });
      const held = [];
      for (let i = 0; i < 20; i++) held.push(fs.open(join(dir, 'pool' + i), { create: true }));
      writeFileSync(join(dir, 'plain'), '');
      try { for (;;) openSync(join(dir, 'plain'), 'r'); } catch (e) { if (e.code !== 'EMFILE') throw e; }
      const more = fs.open(join(dir, 'more'), { create: true });
      more.append(Buffer.from('ok'));
      const relieved = fs.handles.evictions;
      for (const h of held) h.close();
      more.close();
      try { for (;;) openSync(join(dir, 'plain'), 'r'); } catch (e) { if (e.code !== 'EMFILE') throw e; }
      let code = 'none';
      try { fs.open(join(dir, 'again'), { create: true }); } catch (e) { code = e.code + ' ' + e.name + ' ' + /ulimit -n/.test(e.message); }
      console.log(JSON.stringify({ relieved, code }));
    `;
    const node = process.execPath;
    const r = spawnSync('bash', ['-c', 'ulimit -n 64 && exec "$0" --input-type=module -e "$1" "$2"', node, script, root], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim()) as { relieved: number; code: string };
    assert.ok(out.relieved >= 10, `half of the 20 pooled descriptors were closed to make room (${out.relieved})`);
    assert.equal(out.code, 'ERR_TRIB_STORAGE_FILE_LIMIT StorageError true');
  });
});

