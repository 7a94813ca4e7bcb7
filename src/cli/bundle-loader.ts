/**
 * Runs the start-up bundle (scripts/bundle-start.mjs: CommonJS chunks in
 * dist/src/cli-bundle/) with a V8 code cache.
 *
 * Compiling the 1.4 MB broker chunk was about a fifth of a start's CPU time,
 * and Node 20 has no compile cache for modules (`module.enableCompileCache()`
 * is Node 22). A `vm.Script` takes V8's code cache, though: the bytecode of
 * every function compiled so far, serialized by `script.createCachedData()`.
 * So each chunk, a CommonJS module in a function wrapper, is compiled here
 * as a `vm.Script` and run as Node's loader runs a module, with the cache
 * read from `<chunk>.v8cache` beside it when there is one. After a start the
 * bin calls
 * `saveCodeCaches()`; it writes the cache of each chunk that had none or
 * whose cache V8 rejected, so a cache holds the functions a start runs.
 *
 * A cache never runs with another script: V8 itself rejects data made by
 * another V8 version, with other V8 flags, or for a source of another length
 * (its only check on the source), and each cache file starts with a header
 * naming the chunk's size and mtime and the Node version; any difference and
 * the cache is ignored (then rewritten). Chunks have a content hash in their
 * name, and a new bundle removes the old folder with its caches. A cache file
 * is written under a temporary name and renamed, so a reader sees a whole one
 * or none; a folder we may not write to (a global install) only means no cache.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

/** Beside each chunk: `<chunk>.v8cache`. */
export const CODE_CACHE_SUFFIX = '.v8cache';
/** The first line of a cache file (JSON), then V8's data. */
const CACHE_HEADER_END = 0x0a;

/**
 * Each chunk is written inside this wrapper (scripts/bundle-start.mjs: a
 * CommonJS module wrapped as Node's loader wraps one). Written into the file
 * rather than added here: joining strings would make a second copy of the
 * 1.4 MB source at each start (and stack traces show the file's own lines).
 * `importModule` is the bundle's import() of a client command (a vm.Script
 * has none of its own).
 */
export const CHUNK_WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname, importModule) {';
export const CHUNK_WRAPPER_TAIL = '\n})';

type ChunkFunction = (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string, importModule: (specifier: string) => Promise<unknown>) => void;

interface LoadedChunk {
  readonly module: { exports: object };
  readonly script: Script;
  readonly path: string;
  /** The header a cache of this chunk must have; null when the chunk has a valid cache already. */
  readonly header: string | null;
}

/** The cache header of a chunk: its size and mtime, and what made the data. */
function cacheHeader(path: string): string {
  const { size, mtimeMs } = statSync(path);
  return JSON.stringify({ size, mtimeMs, node: process.version, arch: process.arch });
}

/** V8's data from `path`'s cache file when its header is `header`, else undefined. */
function readCodeCache(path: string, header: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path + CODE_CACHE_SUFFIX);
  } catch {
    return undefined; // none yet
  }
  const end = file.indexOf(CACHE_HEADER_END);
  if (end < 0 || file.toString('utf8', 0, end) !== header) return undefined;
  return file.subarray(end + 1);
}

/** Loads CommonJS chunks of the bundle, each once; `require` of anything else is Node's. */
export class BundleLoader {
  private readonly chunks = new Map<string, LoadedChunk>();

  /** The exports of the chunk at `path` (an absolute path), loading it and the chunks it requires. */
  load(path: string): object {
    const loaded = this.chunks.get(path);
    if (loaded !== undefined) return loaded.module.exports;
    const header = cacheHeader(path);
    const cachedData = readCodeCache(path, header);
    // ASCII only (scripts/bundle-start.mjs escapes the rest): Latin-1 reads it without decoding UTF-8.
    const source = readFileSync(path, 'latin1');
    if (!source.startsWith(CHUNK_WRAPPER_HEAD) || !(source.endsWith(CHUNK_WRAPPER_TAIL) || source.endsWith(`${CHUNK_WRAPPER_TAIL}\n`))) {
      throw new Error(`${path}: not a chunk of the start-up bundle (run npm run build)`);
    }
    const script = new Script(source, { filename: path, ...(cachedData === undefined ? {} : { cachedData }) });
    const valid = cachedData !== undefined && script.cachedDataRejected !== true;
    const module = { exports: {} };
    // Registered before it runs, as Node's loader does: a chunk required back while it runs gets its exports so far.
    this.chunks.set(path, { module, script, path, header: valid ? null : header });
    const fn = script.runInThisContext() as ChunkFunction;
    const dir = dirname(path);
    const nodeRequire = createRequire(path);
    const require = ((id: string) => (id.startsWith('./') && id.endsWith('.cjs') ? this.load(join(dir, id)) : nodeRequire(id))) as NodeJS.Require;
    const importModule = (specifier: string): Promise<unknown> => import(new URL(specifier, pathToFileURL(path)).href);
    fn.call(module.exports, module.exports, Object.assign(require, nodeRequire), module, path, dir, importModule);
    return module.exports;
  }

  /**
   * Writes the code cache of each loaded chunk that has no valid one; returns
   * how many were written. Called once the broker serves: the cache then holds
   * every function the start compiled.
   */
  saveCodeCaches(): number {
    let written = 0;
    for (const chunk of this.chunks.values()) {
      if (chunk.header === null) continue;
      const target = chunk.path + CODE_CACHE_SUFFIX;
      const temporary = `${target}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, Buffer.concat([Buffer.from(`${chunk.header}\n`), chunk.script.createCachedData()]));
        renameSync(temporary, target);
        written++;
      } catch {
        // A read-only install: every start compiles, as without a cache.
        rmSync(temporary, { force: true });
      }
    }
    return written;
  }
}
