# Shared helpers of the bench scripts (run.sh, rebalance.sh, clients.sh): source it, do not run it.
#
#   source "$HERE/lib.sh"
#   LIB_NAME=clients.sh                  # prefix of messages
#   build_private "$OUT_ROOT"            # tsc into $OUT_ROOT/dist (incremental); sets BROKER_DIST
#   start_broker "$DATA_DIR" "$LOG" [node args...] [-- extra --override k=v ...]
#                                        # free port, waits for Metadata (kcat); sets BROKER_PID PORT BOOTSTRAP
#   stop_pid "$PID" NAME                 # SIGTERM, wait up to 30 s, then SIGKILL (that pid only)
#   free_port                            # prints a free loopback port
#   log MESSAGE...                       # "[$LIB_NAME HH:MM:SS] MESSAGE" on stderr
#
# Inputs read from the environment: ROOT (repo root), BROKER_OVERRIDES ("k=v ..." extra --override),
# PY (defaults to /usr/bin/python3, which has confluent_kafka).

LIB_NAME=${LIB_NAME:-bench}
PY=${PY:-/usr/bin/python3}
BROKER_PID=${BROKER_PID:-}

log() { printf '[%s %s] %s\n' "$LIB_NAME" "$(date +%H:%M:%S)" "$*" >&2; }

# stop_pid PID NAME: SIGTERM, wait up to 30 s (a graceful broker stop flushes its logs and writes a CPU
# profile), then SIGKILL. Only that pid.
stop_pid() {
  local pid=$1 name=$2
  [[ -n $pid ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      log "$name $pid did not exit 30 s after SIGTERM: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
}

free_port() {
  $PY - <<'EOF'
import socket
s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()
EOF
}

# build_private OUT_ROOT: an incremental tsc build into OUT_ROOT/dist, so the broker (and client) under
# test do not change when other people rebuild dist/. Outside the repo, node finds the packages through
# a node_modules symlink, and "type": "module" (and the CLI's version) through a copy of package.json.
# No .d.ts (tsconfig includes bench/; .d.ts there would become inputs). Sets BROKER_DIST.
build_private() {
  local out=$1
  mkdir -p "$out"
  case "$out" in
    "$ROOT"/*) ;;
    *) ln -sfn "$ROOT/node_modules" "$out/node_modules"; cp "$ROOT/package.json" "$out/package.json" ;;
  esac
  log "building into $out/dist (tsc, incremental)"
  (cd "$ROOT" && timeout 600 npx tsc -p tsconfig.build.json --outDir "$out/dist" \
      --tsBuildInfoFile "$out/tsbuildinfo" --declaration false --declarationMap false) \
    || log "tsc reported errors (emitted anyway); continuing if the entry point exists"
  BROKER_DIST="$out/dist"
  [[ -f $BROKER_DIST/src/cli/main.js ]] || { echo "$LIB_NAME: no $BROKER_DIST/src/cli/main.js" >&2; exit 2; }
}

# start_broker DATA_DIR LOG [node args...] [-- k=v ...]: starts `tributary start` from $BROKER_DIST on a
# free port with DATA_DIR, plus $BROKER_OVERRIDES and the k=v after `--`; waits (30 s at most) until it
# answers Metadata. Sets BROKER_PID, PORT, BOOTSTRAP. Exits the script if the broker does not come up.
start_broker() {
  local data_dir=$1 broker_log=$2; shift 2
  local node_args=() extra=()
  while (($#)); do
    if [[ $1 == -- ]]; then shift; extra=("$@"); break; fi
    node_args+=("$1"); shift
  done
  PORT=$(free_port)
  mkdir -p "$data_dir"
  local overrides=(--override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$data_dir")
  for kv in ${BROKER_OVERRIDES:-} "${extra[@]}"; do overrides+=(--override "$kv"); done
  # The node flags of the bin's first line (#!/usr/bin/env -S node FLAGS), as `tributary start` and
  # `npm start` run: the bench measures what users run. Node arguments given here come after them.
  local bin_flags=()
  read -r -a bin_flags < <(head -n 1 "$BROKER_DIST/src/cli/main.js" | sed -n 's|^#!/usr/bin/env -S node||p') || true  # no flags: read fails at end of input
  node "${bin_flags[@]}" "${node_args[@]}" "$BROKER_DIST/src/cli/main.js" start "${overrides[@]}" >"$broker_log" 2>&1 &
  BROKER_PID=$!
  BOOTSTRAP="127.0.0.1:$PORT"
  log "broker pid $BROKER_PID on $BOOTSTRAP, data $data_dir"
  for _ in $(seq 1 300); do  # 30 s
    if ! kill -0 "$BROKER_PID" 2>/dev/null; then
      echo "$LIB_NAME: broker exited during start-up; log:" >&2; tail -n 40 "$broker_log" >&2; exit 1
    fi
    if timeout 5 kcat -b "$BOOTSTRAP" -L -m 2 >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "$LIB_NAME: broker not answering Metadata after 30 s; log:" >&2; tail -n 40 "$broker_log" >&2; exit 1
}

# broker_warnings LOG DEST: counts the broker's warn/error/fatal lines (pino levels 40/50/60); if there
# are any, prints the first 5 and copies the log to DEST.
broker_warnings() {
  local broker_log=$1 dest=$2 nwarn
  nwarn=$(grep -c -E '"level":(40|50|60)' "$broker_log" || true)
  if [[ ${nwarn:-0} != 0 ]]; then
    log "broker logged $nwarn warning/error line(s); first 5:"
    grep -E '"level":(40|50|60)' "$broker_log" | head -n 5 | cut -c1-400 >&2
    cp "$broker_log" "$dest"
  fi
}
