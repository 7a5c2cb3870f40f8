#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the tests, in a temporary directory on a free local port.
#
#   scripts/postgres-test-cluster.sh start   starts it (or finds the one already started, or starts the crashed
#                                            one again on its port, with its data) and prints its URI
#   scripts/postgres-test-cluster.sh uri     prints the URI of the running one
#   scripts/postgres-test-cluster.sh crash   stops its server at once (pg_ctl -m immediate), as a server that
#                                            dies mid-run, keeping its directory for the next start
#   scripts/postgres-test-cluster.sh stop    stops it and removes its directory
#
# The tests start one of their own when IAPSCREEN_TEST_POSTGRES names no server (see below);
# to run them on one started by hand instead:
#   export IAPSCREEN_TEST_POSTGRES=$(scripts/postgres-test-cluster.sh start)
#
# The superuser `postgres` connects without a password (trust); every other role needs its
# password over TCP (scram-sha-256), so a test can create a role and try a wrong password.
# Durability is off (fsync, synchronous_commit): the data dies with the cluster anyway.
# The server refuses to run as root: as root it runs as the `postgres` user (install-deps.sh
# installs postgresql-15 with that user). Which cluster is running is kept in .build/, so each
# checkout has its own; IAPSCREEN_TEST_CLUSTER_STATE names another file to keep it in, for a
# test that needs a cluster of its own beside that one (one it crashes).
#
# IAPSCREEN_TEST_CLUSTER_OWNER=PID makes the cluster that process's: `start` leaves a watcher
# behind that stops it (and removes its directory and state file) once PID has ended, however
# it ended, and first removes the clusters of owners that are gone and whose watcher went with
# them. The tests start theirs so (Tests/PostgresTestSupport); this never touches a cluster
# started without an owner (by hand, by another checkout) nor one whose owner still runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=/usr/lib/postgresql/15/bin
state=${IAPSCREEN_TEST_CLUSTER_STATE:-.build/postgres-test-cluster}

as_server() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

running_dir() {
  [ -f "$state" ] || return 1
  local dir
  dir=$(cat "$state")
  [ -d "$dir/data" ] && as_server "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 || return 1
  echo "$dir"
}

uri() {
  echo "postgres://postgres@127.0.0.1:$(cat "$1/port")/postgres"
}

# A port nothing listens on now; the start is retried on another if one takes it meanwhile.
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}

# Closes every descriptor of this (sub)shell above stderr: a caller that waits for its pipes
# or sockets to close (as Foundation's Process does, to see this script end) would otherwise
# wait as long as what keeps them runs.
close_inherited() {
  local fd
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ]; then eval "exec $fd>&-"; fi
  done
}

# Starts the server of $1 on port $2. It keeps no descriptor of whoever ran this script but its log.
launch() {
  (
    close_inherited
    as_server "$bin/pg_ctl" -D "$1/data" -l "$1/log" -w -t 30 start \
      -o "-p $2 -k $1 -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      >/dev/null
  )
}

# When process $1 started (clock ticks after boot): with its pid, it names one process, not
# a later one given the same pid. Fails when there is no such process.
started_at() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  # shellcheck disable=SC2086
  set -- $stat
  echo "${20}"
}

# Whether the owner written in $1 (pid, start time) is still running.
owner_alive() {
  local pid since
  read -r pid since _ <"$1" || return 1
  [ "$(started_at "$pid" 2>/dev/null)" = "$since" ]
}

# Stops the server of $1 at once, if it runs, and removes the directory.
discard() {
  if [ -d "$1/data" ]; then as_server "$bin/pg_ctl" -D "$1/data" -w -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$1"
}

# The clusters of owners that are gone (their watcher killed too: a lost session, the OOM
# killer), with their state files. Clusters without an owner are not looked at.
sweep() {
  local d owner pid since state_file
  for d in "${TMPDIR:-/tmp}"/iapscreen-postgres.*; do
    owner="$d/owner"
    [ -f "$owner" ] || continue
    owner_alive "$owner" && continue
    read -r pid since state_file <"$owner" || true
    discard "$d"
    if [ -n "${state_file:-}" ] && [ "$(cat "$state_file" 2>/dev/null)" = "$d" ]; then rm -f "$state_file"; fi
  done
}

# Leaves behind a watcher (in the background, holding none of the caller's descriptors) that
# runs `stop` once the owner $1/owner names has ended. It outlives whatever ends the owner (a ^C
# or a kill sent to its whole process group): it ends by itself, once its work is done.
watch_owner() {
  local owner=$1/owner
  (
    close_inherited
    trap '' INT HUP TERM
    while owner_alive "$owner"; do sleep 1; done
    stop
  ) </dev/null >/dev/null 2>&1 &
}

start() {
  if dir=$(running_dir); then uri "$dir"; return; fi
  # A crashed one comes back with its data, on its port.
  if [ -f "$state" ] && dir=$(cat "$state") && [ -d "$dir/data" ] && [ -f "$dir/port" ]; then
    launch "$dir" "$(cat "$dir/port")" || { cat "$dir/log" >&2; exit 1; }
    uri "$dir"
    return
  fi
  [ -x "$bin/pg_ctl" ] || { echo "no PostgreSQL 15 in $bin: run scripts/install-deps.sh --test-tools" >&2; exit 1; }
  owner_pid=${IAPSCREEN_TEST_CLUSTER_OWNER:-}
  if [ -n "$owner_pid" ]; then
    owner_since=$(started_at "$owner_pid") || { echo "no process $owner_pid to own the cluster" >&2; exit 1; }
    sweep
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/iapscreen-postgres.XXXXXX")
  chmod 755 "$dir"
  # Written before anything else, so that no cluster of an owner is left without its name.
  if [ -n "$owner_pid" ]; then echo "$owner_pid $owner_since $(realpath -m "$state")" >"$dir/owner"; fi
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as_server "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
  cat >"$dir/data/pg_hba.conf" <<'EOF'
local all all                      trust
host  all postgres 127.0.0.1/32    trust
host  all all      127.0.0.1/32    scram-sha-256
EOF
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if launch "$dir" "$port"; then
      echo "$port" >"$dir/port"
      mkdir -p "$(dirname "$state")"
      echo "$dir" >"$state"
      if [ -n "$owner_pid" ]; then watch_owner "$dir"; fi
      uri "$dir"
      return
    fi
  done
  cat "$dir/log" >&2
  rm -rf "$dir"
  exit 1
}

stop() {
  [ -f "$state" ] || return 0
  dir=$(cat "$state")
  if [ -d "$dir/data" ]; then as_server "$bin/pg_ctl" -D "$dir/data" -w -m fast stop >/dev/null 2>&1 || true; fi
  case "$dir" in */iapscreen-postgres.*) rm -rf "$dir" ;; esac
  rm -f "$state"
}

crash() {
  dir=$(running_dir) || { echo "no test cluster is running: start one with $0 start" >&2; exit 1; }
  as_server "$bin/pg_ctl" -D "$dir/data" -w -m immediate stop >/dev/null
}

case "${1:-}" in
  start) start ;;
  uri) dir=$(running_dir) || { echo "no test cluster is running: start one with $0 start" >&2; exit 1; }; uri "$dir" ;;
  crash) crash ;;
  stop) stop ;;
  *) echo "usage: $0 start|uri|crash|stop" >&2; exit 2 ;;
esac
