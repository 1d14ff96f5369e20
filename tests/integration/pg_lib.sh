# PostgreSQL for integration tests (sourced after lib.sh): an own cluster in
# $PG, unix socket only (no TCP listener), started and stopped by pid.
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
PG=$TMP/pg
# an array, not a function: "$PGRUN[@]" ... & is then the server's own pid (setpriv execs)
PGRUN=(setpriv --reuid=postgres --regid=postgres --init-groups --)

# pg_start PORT [SERVER OPTIONS...]: initdb, start (pid in pgpid, stopped at
# cleanup), wait until ready, pgbench -i -s 1. Returns 1 after bad() on failure.
pg_start() {
	local port=$1
	shift
	chmod 711 "$TMP"	# postgres must reach its directory inside
	mkdir -p "$PG/sock"
	chown -R postgres: "$PG"
	"${PGRUN[@]}" "$PGBIN/initdb" -D "$PG/data" -A trust -U postgres --no-sync >"$TMP/initdb.log" 2>&1 ||
		{ bad "initdb: $(tail -3 "$TMP/initdb.log")"; return 1; }
	"${PGRUN[@]}" "$PGBIN/postgres" -D "$PG/data" -k "$PG/sock" -p "$port" -c listen_addresses= "$@" \
		>"$TMP/pg.log" 2>&1 &
	pgpid=$!
	cleanup_hooks+=("kill -INT $pgpid 2>/dev/null; wait $pgpid 2>/dev/null")
	for _ in $(seq 100); do
		"${PGRUN[@]}" /usr/bin/pg_isready -q -h "$PG/sock" -p "$port" && break
		sleep 0.1
	done
	"${PGRUN[@]}" /usr/bin/pgbench -i -s 1 -q -h "$PG/sock" -p "$port" postgres >"$TMP/pgbench-i.log" 2>&1 ||
		{ bad "pgbench -i: $(tail -3 "$TMP/pgbench-i.log")"; return 1; }
}
