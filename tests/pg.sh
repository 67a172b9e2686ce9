# pg.sh — a throw-away PostgreSQL cluster for the tests (sourced).
#
#   . "$TOP_SRCDIR/tests/pg.sh"
#   if cb_pg_start; then ... "$CB_PG_URL" ...; fi    # else $CB_PG_WHY says why not
#
# cb_pg_start finds initdb, pg_ctl and createdb (beside initdb on PATH, or Debian's
# /usr/lib/postgresql/N/bin, newest first), makes a cluster in a new
# temporary directory, and starts it listening only on a unix socket in that
# directory (no TCP port, so it clashes with no other server; the port
# number only names the socket).  PostgreSQL refuses to run as root, so
# root runs it as 'nobody' (runuser).  Trust authentication is safe here:
# the socket's directory is the server user's own, 0700 where root is not
# the one connecting.  It creates the database cb and exports
#   CB_PG_URL   postgresql://cb@/cb?host=DIR&port=PORT
#   CB_PG_DIR   the directory (data/, the socket, server.log)
# and stops the server and removes the directory when the shell exits
# (an EXIT trap: a test that sets its own must call cb_pg_stop itself).
# Returns 1 with CB_PG_WHY set when there is no server to start or it
# would not start.

CB_PG_URL= CB_PG_DIR= CB_PG_WHY= cb_pg_bin= cb_pg_as=

cb_pg_find() {
    # initdb on PATH may be a link into the server's own bin directory,
    # where createdb and postgres are too.
    local d p
    p=$(command -v initdb 2>/dev/null) && p=$(dirname "$(readlink -f "$p")")
    for d in $p $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/createdb" ]; then
            cb_pg_bin=$d
            return 0
        fi
    done
    CB_PG_WHY="no PostgreSQL server here (initdb and pg_ctl not found; Debian: apt-get install postgresql)"
    return 1
}

# Run a server command as the cluster's owner.
cb_pg_run() {
    if [ -n "$cb_pg_as" ]; then
        runuser -u "$cb_pg_as" -- "$@"
    else
        "$@"
    fi
}

cb_pg_start() {
    cb_pg_find || return 1
    if [ "$(id -u)" -eq 0 ]; then
        if ! command -v runuser >/dev/null 2>&1 || ! id nobody >/dev/null 2>&1; then
            CB_PG_WHY="running as root without runuser or the user nobody: PostgreSQL will not run as root"
            return 1
        fi
        cb_pg_as=nobody
    fi
    CB_PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/cb-pg.XXXXXX") || { CB_PG_WHY="mktemp failed"; return 1; }
    trap cb_pg_stop EXIT
    [ -n "$cb_pg_as" ] && chown "$cb_pg_as" "$CB_PG_DIR"
    # A port from our pid: only the socket's name, kept apart from a
    # system server's 5432 socket anyway by the directory.
    local port=$((20000 + $$ % 20000))
    if ! cb_pg_run "$cb_pg_bin/initdb" -D "$CB_PG_DIR/data" -U cb -A trust -E UTF8 --locale=C \
            --no-sync >"$CB_PG_DIR/initdb.log" 2>&1; then
        CB_PG_WHY="initdb failed: $(tail -1 "$CB_PG_DIR/initdb.log")"
        return 1
    fi
    # fsync off: a test cluster that a crash loses is no loss.
    if ! cb_pg_run "$cb_pg_bin/pg_ctl" -D "$CB_PG_DIR/data" -l "$CB_PG_DIR/server.log" -w -t 60 \
            -o "-k $CB_PG_DIR -p $port -c listen_addresses= -F -c max_connections=40" \
            start >/dev/null 2>&1; then
        CB_PG_WHY="the server did not start: $(tail -1 "$CB_PG_DIR/server.log" 2>/dev/null)"
        return 1
    fi
    if ! "$cb_pg_bin/createdb" -h "$CB_PG_DIR" -p "$port" -U cb cb >"$CB_PG_DIR/createdb.log" 2>&1
    then
        CB_PG_WHY="createdb failed: $(tail -1 "$CB_PG_DIR/createdb.log")"
        return 1
    fi
    CB_PG_URL="postgresql://cb@/cb?host=$CB_PG_DIR&port=$port"
    export CB_PG_URL CB_PG_DIR
    return 0
}

cb_pg_stop() {
    if [ -n "$CB_PG_DIR" ] && [ -d "$CB_PG_DIR" ]; then
        if [ -f "$CB_PG_DIR/data/postmaster.pid" ]; then
            cb_pg_run "$cb_pg_bin/pg_ctl" -D "$CB_PG_DIR/data" -m immediate -w stop \
                >/dev/null 2>&1
        fi
        rm -rf "$CB_PG_DIR"
    fi
    CB_PG_DIR=
}
