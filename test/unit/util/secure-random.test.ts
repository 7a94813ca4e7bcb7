import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { secureRandomBytes, secureRandomInt, secureRandomUuidString } from '../../../src/util/secure-random.js';
import { randomUuid, uuidToBytes } from '../../../src/protocol/uuid.js';

const distSrc = fileURLToPath(new URL('../../../src/', import.meta.url));

test('secureRandomBytes returns the asked number of bytes, different each time', () => {
  for (const n of [1, 4, 16, 33, 4096]) assert.equal(secureRandomBytes(n).length, n);
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) seen.add(secureRandomBytes(16).toString('hex'));
  assert.equal(seen.size, 200);
  // Not all zero and not one repeated byte (a read that filled nothing).
  const big = secureRandomBytes(4096);
  assert.ok(new Set(big).size > 200, 'bytes spread over the byte values');
});

test('secureRandomInt stays in [min, max) and reaches every value of a small range', () => {
  const counts = new Map<number, number>();
  for (let i = 0; i < 2000; i++) {
    const x = secureRandomInt(3, 8);
    assert.ok(Number.isInteger(x) && x >= 3 && x < 8, `${x}`);
    counts.set(x, (counts.get(x) ?? 0) + 1);
  }
  assert.deepEqual([...counts.keys()].sort(), [3, 4, 5, 6, 7]);
  for (const c of counts.values()) assert.ok(c > 250, `each value about 400 times, got ${c}`);
  const INT32_MAX = 2 ** 31 - 1;
  for (let i = 0; i < 200; i++) {
    const id = secureRandomInt(1, INT32_MAX);
    assert.ok(id >= 1 && id < INT32_MAX);
  }
  assert.throws(() => secureRandomInt(5, 5), RangeError);
  assert.throws(() => secureRandomInt(0, 2 ** 33), RangeError);
  assert.throws(() => secureRandomInt(0.5, 3), RangeError);
});

test('secureRandomUuidString is a version 4, RFC 4122 variant UUID', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 100; i++) {
    const u = secureRandomUuidString();
    assert.match(u, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    seen.add(u);
  }
  assert.equal(seen.size, 100);
});

test('topic ids are random version 4 uuids', () => {
  const b = uuidToBytes(randomUuid());
  assert.equal((b[6] as number) >> 4, 4);
  assert.equal((b[8] as number) >> 6, 2);
  assert.notEqual(randomUuid(), randomUuid());
});

test('the broker, its SASL servers and the random ids load no node:crypto (about 2 MiB resident)', () => {
  // A fresh process: the test runner itself may have loaded it.
  const modules = ['cli/program.js', 'broker/broker.js', 'security/sasl/plain.js', 'security/sasl/scram.js', 'util/scram.js', 'util/secure-random.js', 'protocol/uuid.js'];
  const script = `${modules.map((m) => `await import(${JSON.stringify(pathToFileURL(distSrc + m).href)});`).join('\n')}
const r = await import(${JSON.stringify(pathToFileURL(`${distSrc}util/secure-random.js`).href)});
r.secureRandomBytes(16); r.secureRandomInt(1, 100); r.secureRandomUuidString();
(await import(${JSON.stringify(pathToFileURL(`${distSrc}protocol/uuid.js`).href)})).randomUuid();
process.stdout.write(JSON.stringify(process.moduleLoadList.filter((m) => /crypto/.test(m))));`;
  const loaded = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
  assert.deepEqual(loaded, []);
});
