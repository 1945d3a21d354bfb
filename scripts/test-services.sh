#!/usr/bin/env bash
# Temporary PostgreSQL and Redis servers for the driver tests (@ctxmem/postgres, @ctxmem/redis).
#
#   bash scripts/test-services.sh start   # installs the servers when absent, starts them, prints the URLs
#   bash scripts/test-services.sh stop    # stops them and removes their data
#   bash scripts/test-services.sh status
#
# `start` installs `postgresql` and `redis-server` from the operating system's packages when their
# binaries are missing (apt-get, as root), starts both on 127.0.0.1 on free ports with their data in
# a temporary folder (PostgreSQL as an unprivileged user: it refuses to run as root), and writes
#   export CTXMEM_POSTGRES_URL=postgres://...
#   export CTXMEM_REDIS_URL=redis://...
# to .cache/test-services.env, which the tests read. It is idempotent: servers that are already up
# are reused. Nothing listens on anything but the loopback address.
set -euo pipefail
cd "$(dirname "$0")/.."
# runuser, useradd and the PostgreSQL tools live in sbin folders that a minimal PATH leaves out.
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

env_file=".cache/test-services.env"
log() { echo "test-services: $*" >&2; }

free_port() {
  # Asks the kernel for a free loopback port (bash alone cannot bind).
  local runtime
  runtime=$(command -v node || true)
  if [ -z "$runtime" ]; then
    log "node is needed to pick a free port"
    exit 1
  fi
  "$runtime" -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

postgres_bin() {
  # The newest installed server's binaries (Debian keeps them out of PATH).
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
    echo "$dir"
  elif command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
  fi
}

install_missing() {
  local packages=()
  [ -n "$(postgres_bin)" ] || packages+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
  [ ${#packages[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    log "missing ${packages[*]} and not root: install them with apt-get (or set CTXMEM_POSTGRES_URL / CTXMEM_REDIS_URL)"
    exit 1
  fi
  log "installing ${packages[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2
  # The packages start system-wide services where an init system runs; the tests use their own.
  if command -v service >/dev/null 2>&1; then
    service redis-server stop >/dev/null 2>&1 || true
    service postgresql stop >/dev/null 2>&1 || true
  fi
}

alive() {
  [ -f "$env_file" ] || return 1
  (
    # shellcheck disable=SC1090
    source "$env_file"
    "$CTXMEM_POSTGRES_BIN/pg_isready" -q -d "$CTXMEM_POSTGRES_URL" >/dev/null 2>&1 &&
      redis-cli -u "$CTXMEM_REDIS_URL" ping 2>/dev/null | grep -q PONG
  )
}

start() {
  if alive; then
    log "already running"
    cat "$env_file"
    return 0
  fi
  [ -f "$env_file" ] && stop
  install_missing
  local bin dir pg_port redis_port run_as=()
  bin=$(postgres_bin)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ctxmem-services.XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    # PostgreSQL refuses to run as root: use its own system user, or create one.
    local user=postgres
    if ! id "$user" >/dev/null 2>&1; then
      user=ctxmem-test
      id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
    fi
    mkdir -p "$dir/postgres"
    chown "$user" "$dir/postgres"
    run_as=(runuser -u "$user" --)
  fi

  pg_port=$(free_port)
  "${run_as[@]}" "$bin/initdb" -D "$dir/postgres" -U postgres --auth=trust --encoding=UTF8 \
    --locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  # fsync=off: the data is thrown away after the run; client crashes are what the tests simulate.
  "${run_as[@]}" "$bin/pg_ctl" -D "$dir/postgres" -l "$dir/postgres/server.log" -w -t 60 \
    -o "-p $pg_port -k $dir/postgres -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" \
    start >/dev/null

  redis_port=$(free_port)
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir" --save '' --appendonly no \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  for _ in $(seq 1 100); do
    redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null | grep -q PONG && break
    sleep 0.1
  done

  mkdir -p "$(dirname "$env_file")"
  cat >"$env_file" <<EOF
export CTXMEM_POSTGRES_URL=postgres://postgres@127.0.0.1:$pg_port/postgres
export CTXMEM_REDIS_URL=redis://127.0.0.1:$redis_port
export CTXMEM_SERVICES_DIR=$dir
export CTXMEM_POSTGRES_BIN=$bin
EOF
  alive || {
    log "the servers did not come up; logs in $dir"
    exit 1
  }
  log "started (data in $dir)"
  cat "$env_file"
}

stop() {
  [ -f "$env_file" ] || {
    log "not running"
    return 0
  }
  # shellcheck disable=SC1090
  source "$env_file"
  local run_as=()
  if [ "$(id -u)" -eq 0 ] && [ -d "$CTXMEM_SERVICES_DIR/postgres" ]; then
    run_as=(runuser -u "$(stat -c %U "$CTXMEM_SERVICES_DIR/postgres")" --)
  fi
  "${run_as[@]}" "$CTXMEM_POSTGRES_BIN/pg_ctl" -D "$CTXMEM_SERVICES_DIR/postgres" -m immediate \
    -w stop >/dev/null 2>&1 || true
  if [ -f "$CTXMEM_SERVICES_DIR/redis.pid" ]; then
    kill "$(cat "$CTXMEM_SERVICES_DIR/redis.pid")" 2>/dev/null || true
  fi
  case "$CTXMEM_SERVICES_DIR" in
  "${TMPDIR:-/tmp}"/ctxmem-services.*) rm -rf "$CTXMEM_SERVICES_DIR" ;;
  esac
  rm -f "$env_file"
  log "stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) if alive; then cat "$env_file"; else
  log "not running"
  exit 1
fi ;;
*)
  echo "usage: $0 start|stop|status" >&2
  exit 2
  ;;
esac
