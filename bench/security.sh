#!/usr/bin/env bash
# Produce and consume throughput over PLAINTEXT, SASL_PLAINTEXT (PLAIN and SCRAM-SHA-512), SSL and
# SASL_SSL (SCRAM-SHA-512) on one Tributary broker, with kcat (librdkafka) as the client, in the same
# run. SASL costs one handshake per connection; TLS costs encryption of every byte on both sides.
# The certificates (a CA and a server certificate for 127.0.0.1) are made with openssl in a temp dir.
# See bench/README.md, section "Security".
#
#   bash bench/security.sh                      # RUNS=3 COUNT=500000 SIZE=100
#   RUNS=1 COUNT=100000 bash bench/security.sh
#
# The first run is preceded by an untimed warm-up; the order of the modes rotates between runs.
# Env (defaults): RUNS=3 COUNT=500000 SIZE=100 BUILD=1 BUILD_ROOT=/tmp/tributary-security-build
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
PY=/usr/bin/python3
RUNS=${RUNS:-3}
COUNT=${COUNT:-500000}
SIZE=${SIZE:-100}
BUILD_ROOT=${BUILD_ROOT:-/tmp/tributary-security-build}
LIB_NAME=security.sh
# shellcheck source=lib.sh
source "$HERE/lib.sh"

if [[ ${BUILD:-1} == 1 ]]; then build_private "$BUILD_ROOT"; else BROKER_DIST="$ROOT/dist"; fi
WORK=$(mktemp -d /tmp/tributary-security-bench.XXXXXX)
trap 'stop_pid "${BROKER_PID:-}" broker; rm -rf "$WORK"' EXIT

JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required user_bench="bench-secret";'
# A throw-away CA and server certificate (SAN 127.0.0.1); the key store is Kafka's PEM key + chain.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/ca.key" -out "$WORK/ca.pem" -days 1 -subj /CN=bench-ca 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$WORK/server.key" -out "$WORK/server.csr" -subj /CN=localhost 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$WORK/server.ext"
openssl x509 -req -in "$WORK/server.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -out "$WORK/server.pem" -days 1 -extfile "$WORK/server.ext" 2>/dev/null
cat "$WORK/server.key" "$WORK/server.pem" > "$WORK/keystore.pem"
# Records: SIZE bytes each, one per line.
$PY -c "import sys; sys.stdout.write(('x' * $SIZE + '\\n') * $COUNT)" > "$WORK/records.txt"

# sasl_args MODE: kcat -X options of one mode.
sasl_args() {
  case $1 in
    plaintext) echo "" ;;
    sasl-plain) echo "-X security.protocol=SASL_PLAINTEXT -X sasl.mechanism=PLAIN -X sasl.username=bench -X sasl.password=bench-secret" ;;
    sasl-scram) echo "-X security.protocol=SASL_PLAINTEXT -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username=scram -X sasl.password=scram-secret" ;;
    ssl) echo "-X security.protocol=SSL -X ssl.ca.location=$WORK/ca.pem" ;;
    sasl-ssl) echo "-X security.protocol=SASL_SSL -X ssl.ca.location=$WORK/ca.pem -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username=scram -X sasl.password=scram-secret" ;;
  esac
}

# port_of MODE: the listener a mode connects to.
port_of() {
  case $1 in
    plaintext) echo "$PORT" ;;
    sasl-plain|sasl-scram) echo "$SPORT" ;;
    ssl) echo "$TPORT" ;;
    sasl-ssl) echo "$STPORT" ;;
  esac
}

rate() { # COUNT SECONDS -> "records/s MB/s"
  awk -v n="$COUNT" -v s="$2" -v size="$SIZE" 'BEGIN { printf "%.0f rec/s %.1f MB/s", n / s, n * size / s / 1e6 }'
}

echo "mode run produce consume" > "$WORK/results"
for run in $(seq 1 "$RUNS"); do
  PORT=$(free_port); SPORT=$(free_port); TPORT=$(free_port); STPORT=$(free_port)
  node "$BROKER_DIST/src/cli/main.js" start \
    --override "listeners=PLAINTEXT://127.0.0.1:$PORT,SASL_PLAINTEXT://127.0.0.1:$SPORT,SSL://127.0.0.1:$TPORT,SASL_SSL://127.0.0.1:$STPORT" \
    --override "log.dirs=$WORK/data-$run" --override "listener.name.sasl_plaintext.plain.sasl.jaas.config=$JAAS" \
    --override "listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512" \
    --override "ssl.keystore.location=$WORK/keystore.pem" --override "ssl.truststore.location=$WORK/ca.pem" >"$WORK/broker-$run.log" 2>&1 &
  BROKER_PID=$!
  for _ in $(seq 1 300); do timeout 5 kcat -b "127.0.0.1:$PORT" -L -m 2 >/dev/null 2>&1 && break; sleep 0.1; done
  node --input-type=module -e "
    const { Admin } = await import('$BROKER_DIST/src/client/admin.js');
    const a = await Admin.connect({ bootstrap: '127.0.0.1:$PORT' });
    const r = await a.alterUserScramCredentials([{ user: 'scram', mechanism: 'SCRAM-SHA-512', password: 'scram-secret' }]);
    if (r[0].error) throw r[0].error;
    await a.close();"
  # Untimed warm-up (the broker's JIT), then the modes in a different order each run.
  kcat -b "127.0.0.1:$PORT" -P -t "warmup-$run" -p 0 -l -X linger.ms=5 -X batch.size=1000000 -X acks=1 "$WORK/records.txt"
  kcat -b "127.0.0.1:$PORT" -C -t "warmup-$run" -p 0 -o beginning -e -q >/dev/null
  modes=(plaintext sasl-plain sasl-scram ssl sasl-ssl)
  shift_by=$(( (run - 1) % ${#modes[@]} ))
  for mode in "${modes[@]:$shift_by}" "${modes[@]:0:$shift_by}"; do
    port=$(port_of "$mode")
    topic="bench-$mode-$run"
    # shellcheck disable=SC2046
    t0=$(date +%s.%N)
    kcat -b "127.0.0.1:$port" $(sasl_args "$mode") -P -t "$topic" -p 0 -l -X linger.ms=5 -X batch.size=1000000 -X acks=1 "$WORK/records.txt"
    t1=$(date +%s.%N)
    # shellcheck disable=SC2046
    got=$(kcat -b "127.0.0.1:$port" $(sasl_args "$mode") -C -t "$topic" -p 0 -o beginning -e -q | wc -l)
    t2=$(date +%s.%N)
    [[ $got == "$COUNT" ]] || { log "$mode run $run: consumed $got of $COUNT"; exit 1; }
    p=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'); c=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')
    log "$mode run $run: produce $(rate "$COUNT" "$p"), consume $(rate "$COUNT" "$c")"
    echo "$mode $run $p $c" >> "$WORK/results"
  done
  broker_warnings "$WORK/broker-$run.log" "/tmp/tributary-security-broker-$run.log"
  stop_pid "$BROKER_PID" broker; BROKER_PID=
done

echo
echo "Median over $RUNS run(s), $COUNT records of $SIZE bytes, kcat (librdkafka), acks=1, one partition:"
printf '%-12s %24s %24s\n' mode produce consume
for mode in plaintext sasl-plain sasl-scram ssl sasl-ssl; do
  p=$(awk -v m="$mode" '$1 == m { print $3 }' "$WORK/results" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  c=$(awk -v m="$mode" '$1 == m { print $4 }' "$WORK/results" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  printf '%-12s %24s %24s\n' "$mode" "$(rate "$COUNT" "$p")" "$(rate "$COUNT" "$c")"
done
