#!/usr/bin/env bash
# Throwaway PostgreSQL server for the store tests (loopback only, trust auth).
#
#   eval "$(.ci/postgres.sh start)"   # starts a server, prints export lines:
#                                     #   INTERLINGUA_TEST_PG_URL=postgresql+asyncpg://postgres@127.0.0.1:PORT/interlingua_test
#                                     #   INTERLINGUA_PG_DIR=/tmp/interlingua-pg.XXXX (cluster, socket, log)
#   .ci/postgres.sh stop [DIR]        # stops it and removes DIR (default: $INTERLINGUA_PG_DIR)
#
# Or `source .ci/postgres.sh` and call pg_start / pg_stop (pg_start exports the variables).
#
# When initdb is missing, the Debian package `postgresql` is installed with apt-get.
# PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres`
# user (created by the package) and its commands run through runuser.
# Durability is off (fsync=off): the cluster is for tests only.

_pg_bindir() {
    local d
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
    done
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
    return 1
}

_pg_install() {
    echo "postgres.sh: initdb not found; installing the Debian package postgresql" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql >&2
}

_pg_as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

_pg_free_port() {
    python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

pg_start() {
    local bindir dir port db=interlingua_test
    bindir="$(_pg_bindir)" || { _pg_install && bindir="$(_pg_bindir)"; } || {
        echo "postgres.sh: no PostgreSQL server binaries (initdb) after installing" >&2; return 1; }
    dir="$(mktemp -d /tmp/interlingua-pg.XXXXXX)" || return 1
    chmod 755 "$dir"
    mkdir -p "$dir/data" "$dir/sock"
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --home-dir "$dir" --shell /bin/sh postgres
        chown -R postgres: "$dir"
    fi
    _pg_as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2; return 1; }
    local tries=0
    while :; do
        port="$(_pg_free_port)"
        if _pg_as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-h 127.0.0.1 -p $port -k $dir/sock -F -c max_connections=200 -c synchronous_commit=off -c full_page_writes=off" \
            start >/dev/null; then
            break
        fi
        tries=$((tries + 1))
        if [ "$tries" -ge 3 ]; then cat "$dir/server.log" >&2; return 1; fi
    done
    "$bindir/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE $db" >&2 || return 1
    echo "$bindir" >"$dir/bindir"
    export INTERLINGUA_PG_DIR="$dir"
    export INTERLINGUA_TEST_PG_URL="postgresql+asyncpg://postgres@127.0.0.1:$port/$db"
    echo "export INTERLINGUA_PG_DIR=$dir"
    echo "export INTERLINGUA_TEST_PG_URL=$INTERLINGUA_TEST_PG_URL"
}

pg_stop() {
    local dir="${1:-${INTERLINGUA_PG_DIR:-}}"
    if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
        echo "postgres.sh: no cluster directory to stop (give DIR or set INTERLINGUA_PG_DIR)" >&2; return 1
    fi
    _pg_as_owner "$(cat "$dir/bindir")/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    rm -rf "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    case "${1:-}" in
        start) pg_start >/dev/null && echo "export INTERLINGUA_PG_DIR=$INTERLINGUA_PG_DIR" && echo "export INTERLINGUA_TEST_PG_URL=$INTERLINGUA_TEST_PG_URL" ;;
        stop) pg_stop "${2:-}" ;;
        *) echo "usage: $0 start|stop [DIR]" >&2; exit 2 ;;
    esac
fi
