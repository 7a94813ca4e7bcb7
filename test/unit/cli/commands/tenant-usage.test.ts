// The tenant usage reader (src/cli/commands/tenant-usage.ts) sums one
// principal's tributary_principal_* gauges from Prometheus text, and only
// that principal's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addUsageFromMetrics, type TenantUsage } from '../../../../src/cli/commands/tenant-usage.js';

const PAGE = `# HELP tributary_principal_produce_bytes_rate x
# TYPE tributary_principal_produce_bytes_rate gauge
tributary_principal_produce_bytes_rate{principal="User:alice"} 1500.5
tributary_principal_produce_bytes_rate{principal="User:alice2"} 99
tributary_principal_fetch_bytes_rate{principal="User:alice"} 200
tributary_principal_request_time_percent{principal="User:alice"} 1.25
tributary_principal_connections{principal="User:alice"} 3
tributary_connections{listener="PLAINTEXT"} 7
`;

describe('addUsageFromMetrics', () => {
  it("sums the principal's gauges over pages", () => {
    const u: TenantUsage = { produceBytesPerSec: 0, fetchBytesPerSec: 0, requestTimePercent: 0, connections: 0, brokers: 0, unreachable: [] };
    addUsageFromMetrics(PAGE, 'User:alice', u);
    addUsageFromMetrics(PAGE, 'User:alice', u);
    assert.deepEqual(u, { produceBytesPerSec: 3001, fetchBytesPerSec: 400, requestTimePercent: 2.5, connections: 6, brokers: 0, unreachable: [] });
  });
});
