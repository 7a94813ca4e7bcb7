/**
 * Property tests for every message schema in every version it defines
 * (franz-go hostile_broker_test.go in spirit):
 *  - encode(random) then decode gives the value back: re-encoding the decoded
 *    value yields the same bytes, and every field the random value set comes
 *    back equal (fields it left out come back as their defaults);
 *  - every truncation of an encoded value throws DecodeError, never another
 *    error type;
 *  - random and mutated bytes decode to a value or throw DecodeError.
 * ROUNDTRIP_SEED=n replays a run; ROUNDTRIP_RUNS sets the runs per (schema, version).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decode, encode } from '../../../src/protocol/codec.js';
import { DecodeError } from '../../../src/protocol/primitives/decode-error.js';
import { inRange, parseVersionRange, type FieldSpec, type Input, type MessageSchema, type TypeSpec } from '../../../src/protocol/schema.js';
import { apiSchemas } from '../../../src/protocol/messages/index.js';
import { BOUNDARY_LIMITS, messageArbitrary, type MessageValue } from './arbitrary.js';

const RUNS = Number(process.env['ROUNDTRIP_RUNS'] ?? 50);
/** Runs with lengths around the compact-prefix steps (127/128, 16383/16384). */
const BOUNDARY_RUNS = Number(process.env['ROUNDTRIP_BOUNDARY_RUNS'] ?? 10);
const SEED = process.env['ROUNDTRIP_SEED'] === undefined ? Date.now() % 0x7fffffff : Number(process.env['ROUNDTRIP_SEED']);
const TRUNCATED_SAMPLES = 3;
const RANDOM_BYTES_LENGTH_MAX = 96;
/** A generous bound: one (schema, version) takes milliseconds; a hang fails here. */
const TEST_TIMEOUT_MS = 30_000;

const params = (numRuns: number): fc.Parameters<unknown> => ({ numRuns, seed: SEED, endOnFailure: false });

function schemasUnderTest(): MessageSchema[] {
  const out: MessageSchema[] = [];
  for (const api of apiSchemas.values()) out.push(api.request, api.response);
  return out;
}

function versionsOf(schema: MessageSchema): number[] {
  const out: number[] = [];
  for (let v = schema.minVersion; v <= schema.maxVersion; v++) out.push(v);
  return out;
}

const enc = (schema: MessageSchema, version: number, value: unknown): Buffer => encode(schema, version, value as Input<MessageSchema>);

/** Checks that every field `expected` sets is present and equal in `actual` (deep, with Buffer and NaN care). */
function assertSubset(actual: unknown, expected: unknown, path: string): void {
  if (Buffer.isBuffer(expected)) {
    assert.ok(Buffer.isBuffer(actual), `${path}: expected a Buffer`);
    assert.ok(expected.equals(actual), `${path}: bytes differ`);
    return;
  }
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((e, i) => assertSubset(actual[i], e, `${path}[${i}]`));
    return;
  }
  if (typeof expected === 'object' && expected !== null) {
    assert.ok(typeof actual === 'object' && actual !== null, `${path}: expected an object`);
    for (const [k, e] of Object.entries(expected)) assertSubset((actual as MessageValue)[k], e, `${path}.${k}`);
    return;
  }
  assert.ok(Object.is(actual, expected), `${path}: ${String(actual)} !== ${String(expected)}`);
}

function decodesOrDecodeError(schema: MessageSchema, version: number, bytes: Buffer): void {
  try {
    decode(schema, version, bytes);
  } catch (err) {
    if (!(err instanceof DecodeError)) {
      assert.fail(`${schema.name} v${version}: ${String(err)} is not a DecodeError (input ${bytes.toString('hex')})`);
    }
  }
}

/** Names and tags unique in every struct; a field is tagged only in flexible versions. */
function checkStruct(schema: MessageSchema, fields: readonly FieldSpec[], where: string): void {
  const names = new Set<string>();
  const tags = new Set<number>();
  for (const f of fields) {
    assert.ok(!names.has(f.name), `${where}: duplicate field ${f.name}`);
    names.add(f.name);
    if (f.options.tag !== undefined) {
      assert.ok(!tags.has(f.options.tag), `${where}: duplicate tag ${f.options.tag}`);
      tags.add(f.options.tag);
      const tagged = parseVersionRange(f.options.taggedVersions ?? f.options.versions ?? '0+');
      for (let v = Math.max(tagged.min, schema.minVersion); v <= Math.min(tagged.max, schema.maxVersion); v++) {
        assert.ok(inRange(schema.flexible, v), `${where}.${f.name}: tagged in v${v}, which is not flexible`);
      }
    }
    let type: TypeSpec = f.type;
    while (typeof type !== 'string' && type.kind === 'array') type = type.element as TypeSpec;
    if (typeof type !== 'string') checkStruct(schema, type.fields as readonly FieldSpec[], `${where}.${f.name}`);
  }
}

test('every API has request and response schemas that agree on key, versions and flexibility', () => {
  for (const [key, api] of apiSchemas) {
    assert.equal(api.apiKey, key);
    assert.equal(api.request.kind, 'request', api.name);
    assert.equal(api.response.kind, 'response', api.name);
    for (const s of [api.request, api.response]) {
      assert.equal(s.apiKey, key, s.name);
      assert.equal(s.minVersion, 0, `${s.name} must define every version from 0`);
      checkStruct(s, s.fields, s.name);
    }
    assert.equal(api.request.maxVersion, api.response.maxVersion, api.name);
    assert.deepEqual(api.request.flexible, api.response.flexible, api.name);
  }
});

for (const schema of schemasUnderTest()) {
  test(`${schema.name} (api ${schema.apiKey}) v${schema.minVersion}-${schema.maxVersion}`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    t.diagnostic(`ROUNDTRIP_SEED=${SEED}`);
    for (const version of versionsOf(schema)) {
      const arb = messageArbitrary(schema, version);

      await t.test(`v${version} round-trips ${RUNS} random values`, () => {
        fc.assert(
          fc.property(arb, (value) => {
            const bytes = enc(schema, version, value);
            const back = decode(schema, version, bytes);
            assert.deepEqual(enc(schema, version, back), bytes, 're-encoding the decoded value changes the bytes');
            assertSubset(back, value, `${schema.name} v${version}`);
          }),
          params(RUNS),
        );
      });

      await t.test(`v${version} round-trips ${BOUNDARY_RUNS} values with multi-byte length prefixes`, () => {
        fc.assert(
          fc.property(messageArbitrary(schema, version, BOUNDARY_LIMITS), (value) => {
            const bytes = enc(schema, version, value);
            const back = decode(schema, version, bytes);
            assert.deepEqual(enc(schema, version, back), bytes, 're-encoding the decoded value changes the bytes');
            assertSubset(back, value, `${schema.name} v${version}`);
          }),
          params(BOUNDARY_RUNS),
        );
      });

      await t.test(`v${version} every truncation throws DecodeError`, () => {
        for (const value of fc.sample(arb, { numRuns: TRUNCATED_SAMPLES, seed: SEED })) {
          const bytes = enc(schema, version, value);
          for (let cut = 0; cut < bytes.length; cut++) {
            assert.throws(() => decode(schema, version, bytes.subarray(0, cut)), DecodeError, `cut at ${cut} of ${bytes.length}`);
          }
        }
      });

      await t.test(`v${version} random and mutated bytes give a value or DecodeError`, () => {
        fc.assert(
          fc.property(fc.uint8Array({ maxLength: RANDOM_BYTES_LENGTH_MAX }), (a) => decodesOrDecodeError(schema, version, Buffer.from(a))),
          params(RUNS),
        );
        const mutated = fc.tuple(arb, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }));
        fc.assert(
          fc.property(mutated, ([value, edits]) => {
            const bytes = Buffer.from(enc(schema, version, value));
            if (bytes.length === 0) return;
            for (const [at, byte] of edits) bytes[at % bytes.length] = byte;
            decodesOrDecodeError(schema, version, bytes);
          }),
          params(RUNS),
        );
      });
    }
  });
}
