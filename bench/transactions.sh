#!/usr/bin/env bash
# Transactions benchmark (issue 13): one broker, in the same run,
#  1. `bench produce` with the idempotent producer (acks=all),
#  2. `bench produce --transactional-id` (transactions of RPT records, one at a time): records/s
#     (aim: >= 70% of 1.) and commitTransaction latency p50/p99,
#  3. `bench consume` of the transactional topic read_uncommitted and read_committed, each twice in the
#     order u c c u, means compared (aim: read_committed >= 90%).
# The machine is shared: figures move by 20% or more between runs; compare within one run only.
#
#   bash bench/transactions.sh
#   COUNT=200000 BUILD=0 bash bench/transactions.sh
#
# Env (defaults): BUILD=1 COUNT=500000 SIZE=100 PARTITIONS=4 RPT=1000 OUT=bench/results/transactions-<time>
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
LIB_NAME=transactions.sh
source "$HERE/lib.sh"
COUNT=${COUNT:-500000}
SIZE=${SIZE:-100}
PARTITIONS=${PARTITIONS:-4}
RPT=${RPT:-1000}
OUT=${OUT:-$ROOT/bench/results/transactions-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
if [[ ${BUILD:-1} == 1 ]]; then (cd "$ROOT" && timeout 900 npx tsc -p tsconfig.build.json); fi
BROKER_DIST=$ROOT/dist
WORK=$(mktemp -d)
trap 'stop_pid "$BROKER_PID" broker; rm -rf "$WORK"' EXIT
BROKER_OVERRIDES="transaction.state.log.num.partitions=4 offsets.topic.num.partitions=4" start_broker "$WORK/data" "$OUT/broker.log"
CLI=(node "$BROKER_DIST/src/cli/main.js")
COMMON=(--bootstrap "$BOOTSTRAP" --records "$COUNT" --record-size "$SIZE" --create-topic --partitions "$PARTITIONS" --acks all --json --no-progress)
log "idempotent producer: $COUNT records of $SIZE bytes"
timeout 900 "${CLI[@]}" bench produce --topic idem "${COMMON[@]}" --idempotent >"$OUT/produce-idempotent.json"
log "transactional producer: transactions of $RPT records"
timeout 900 "${CLI[@]}" bench produce --topic txn "${COMMON[@]}" --transactional-id bench-tx --records-per-transaction "$RPT" >"$OUT/produce-transactional.json"
# Each isolation level twice, in the order u c c u, and the mean of the two: the first read of the topic
# (page cache, the broker's JIT) and load that drifts during the run then weigh on both levels alike.
n=0
for level in read_uncommitted read_committed read_committed read_uncommitted; do
  n=$((n + 1))
  log "consumer, $level (read $n of 4)"
  timeout 900 "${CLI[@]}" bench consume --bootstrap "$BOOTSTRAP" --topic txn --records "$COUNT" --isolation-level "$level" --json --no-progress >"$OUT/consume-$level-$n.json"
done
broker_warnings "$OUT/broker.log" "$OUT/broker-warnings.log"
node - "$OUT" <<'JS'
const { readFileSync } = require('node:fs');
const dir = process.argv[2];
const j = (f) => JSON.parse(readFileSync(`${dir}/${f}.json`, 'utf8'));
const idem = j('produce-idempotent'), txn = j('produce-transactional');
const mean = (a, b) => ({ recordsPerSec: Math.round((a.recordsPerSec + b.recordsPerSec) / 2), mbPerSec: (a.mbPerSec + b.mbPerSec) / 2, runs: [a.recordsPerSec, b.recordsPerSec] });
const ru = mean(j('consume-read_uncommitted-1'), j('consume-read_uncommitted-4')), rc = mean(j('consume-read_committed-2'), j('consume-read_committed-3'));
const pct = (a, b) => `${((100 * a) / b).toFixed(0)}%`;
const c = txn.transactions.commitLatencyMs;
console.log(`| run | records/s | MB/s | vs baseline |`);
console.log(`|---|---|---|---|`);
console.log(`| produce, idempotent | ${idem.recordsPerSec} | ${idem.mbPerSec.toFixed(1)} | - |`);
console.log(`| produce, transactions of ${txn.settings.recordsPerTransaction} | ${txn.recordsPerSec} | ${txn.mbPerSec.toFixed(1)} | ${pct(txn.recordsPerSec, idem.recordsPerSec)} of idempotent |`);
console.log(`| consume read_uncommitted (mean of ${ru.runs.join(', ')}) | ${ru.recordsPerSec} | ${ru.mbPerSec.toFixed(1)} | - |`);
console.log(`| consume read_committed (mean of ${rc.runs.join(', ')}) | ${rc.recordsPerSec} | ${rc.mbPerSec.toFixed(1)} | ${pct(rc.recordsPerSec, ru.recordsPerSec)} of read_uncommitted |`);
console.log(`\ncommit latency (commitTransaction, ${txn.transactions.committed} transactions): p50 ${c.p50.toFixed(2)} ms, p99 ${c.p99.toFixed(2)} ms, max ${c.max.toFixed(2)} ms`);
JS
log "results in $OUT"
