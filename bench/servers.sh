# bench/servers.sh — sourced by the benches of the agent next to real
# servers (agent_servers.sh, agent_cost.sh): a temporary directory removed
# at exit with every hook in cleanup_hooks, then PostgreSQL (fsync and
# synchronous commit on) on PORT and nginx on PORT+1, loopback only, started
# and stopped by pid (tests/integration/pg_lib.sh, servers_lib.sh).
# servers_begin NAME: sets TMP, PORT, cleanup_hooks, bad(); exits on failure
servers_begin() {
	[ "$(id -u)" = 0 ] || { echo "bench/$1.sh: needs root" >&2; exit 1; }
	TMP=$(mktemp -d "/tmp/hotcold-$1.XXXXXX")
	cleanup_hooks=()
	BENCH_NAME=$1
	bad() { echo "bench/$BENCH_NAME.sh: $*" >&2; }
	trap 'for h in "${cleanup_hooks[@]+"${cleanup_hooks[@]}"}"; do eval "$h"; done; rm -rf "$TMP"' EXIT
	. tests/integration/pg_lib.sh
	. tests/integration/servers_lib.sh
	PORT=$((20000 + RANDOM % 20000))
	pg_start $PORT -c fsync=on -c synchronous_commit=on -c shared_buffers=16MB || exit 1
	nginx_start $((PORT + 1))
}
