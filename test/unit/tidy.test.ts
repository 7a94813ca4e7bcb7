/**
 * Project rules that a compiler does not check (CONTRIBUTING.md, "tidy test"):
 * no `any`; no wall clock, timers, randomness, fs or net in the deterministic
 * layers; handlers declare versions inside their schemas and carry a header
 * comment; ApiVersions advertises exactly the handler registry; every Kafka
 * error code has a name and a description.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allHandlers } from '../../src/broker/handlers/index.js';
import { HandlerRegistry } from '../../src/broker/handler-registry.js';
import { allErrors } from '../../src/protocol/errors.js';
import { apiSchemas } from '../../src/protocol/messages/index.js';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Source text with comments and string contents removed, so prose about Date.now() or "any" is allowed. */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
}

test('no `any` in src', () => {
  const offenders = sources(join(root, 'src')).filter((f) => /(:\s*any\b|<any>|\bas any\b|any\[\]|<any,)/.test(code(f)));
  assert.deepEqual(offenders.map((f) => relative(root, f)), []);
});

test('deterministic layers take Clock/Random/FileSystem instead of globals', () => {
  const forbidden = /\bDate\.now\(|\bsetTimeout\(|\bsetInterval\(|\bMath\.random\(|\bperformance\.now\(|from 'node:(fs|net|dgram)'|from '(fs|net)'/;
  // The one production FileSystem implementation is where node:fs belongs; the group
  // service is where the group coordinator is wired to real time and member ids.
  const allowed = new Set(['src/storage/fs.ts', 'src/coordinator/group/group-service.ts']);
  const offenders = ['src/storage', 'src/controller', 'src/replication', 'src/coordinator']
    .flatMap((d) => sources(join(root, d)))
    .filter((f) => !allowed.has(relative(root, f)) && forbidden.test(code(f)));
  assert.deepEqual(offenders.map((f) => relative(root, f)), []);
});

test('each handler declares a range inside its schema, is registered, and documents its versions', () => {
  const registry = new HandlerRegistry(allHandlers); // throws on a range outside the schema
  const dir = join(root, 'src', 'broker', 'handlers');
  const files = readdirSync(dir).filter((f) => /^\d{2,5}-.*\.ts$/.test(f));
  const keyOf = (f: string): number => Number(f.slice(0, f.indexOf('-')));
  const keys = files.map(keyOf);
  assert.deepEqual(
    [...keys].sort((a, b) => a - b),
    registry.ranges().map((r) => r.apiKey),
    'handler files and the registry list the same API keys',
  );
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    assert.match(text, new RegExp(`^// ${keyOf(f)} [A-Z]`), `${f} starts with a "// <key> <Name>" version-notes comment`);
  }
  for (const h of allHandlers) {
    assert.equal(apiSchemas.get(h.apiKey)?.request, h.request, `${h.name} uses the registered request schema`);
  }
});

test('every error code has a unique name and a description', () => {
  const names = new Set<string>();
  for (const e of allErrors) {
    assert.ok(!names.has(e.name), `duplicate error name ${e.name}`);
    names.add(e.name);
    if (e.code !== 0) assert.ok(e.description.length > 10, `${e.name} has a description`);
  }
});
