// The API permission table is consistent with itself and with its
// documentation: whole-request requirements have a gate, errors are
// authorization errors, and docs/security.md shows a row per API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { API_ACLS } from '../../../../src/security/authorizer/api-acls.js';

const AUTH_ERRORS = new Set(['TOPIC_AUTHORIZATION_FAILED', 'GROUP_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'NONE']);

test('request-scope requirements are gated; errors are authorization errors; filters have no error', () => {
  for (const [key, row] of Object.entries(API_ACLS)) {
    for (const r of row.requires) {
      assert.ok(AUTH_ERRORS.has(r.error), `${row.name}: ${r.error}`);
      assert.equal(r.scope === 'filter', r.error === 'NONE', `${row.name}: a filter leaves out, others answer an error`);
      if (r.scope === 'request') assert.ok(row.gate !== undefined, `API ${key} ${row.name}: a whole-request requirement needs a gate`);
    }
  }
});

test('docs/security.md lists every API of the table', () => {
  const doc = readFileSync(new URL('../../../../../docs/security.md', import.meta.url), 'utf8');
  for (const [key, row] of Object.entries(API_ACLS)) assert.match(doc, new RegExp(`^\\| ${key} \\| ${row.name} \\|`, 'm'), `docs/security.md has no row for ${key} ${row.name}`);
});
