#!/usr/bin/env bash
# Mirror benchmark (issue 18): replication throughput A -> B with `tributary mirror` beside a
# hand-written consume-and-produce loop on our clients, in the same run, and the replication latency
# at RATE records/s; then the same with exact mode (A->B.mode = exact). See bench/mirror.mjs for what each phase measures.
#
#   bash bench/mirror.sh
#   COUNT=200000 BUILD=0 bash bench/mirror.sh
#
# Env (defaults): BUILD=1 COUNT=1000000 SIZE=1024 PARTITIONS=4 RATE=10000 LAT_SECONDS=10 PHASES="loop mirror latency exact exact-latency"
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
if [[ ${BUILD:-1} == 1 ]]; then (cd "$ROOT" && timeout 900 npx tsc -p tsconfig.build.json); fi
[[ -f $ROOT/dist/src/mirror/index.js ]] || { echo "mirror.sh: no dist/src/mirror/index.js (build first)" >&2; exit 2; }
cd "$ROOT"
timeout 3600 node bench/mirror.mjs
