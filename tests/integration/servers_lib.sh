# nginx and Redis for the real-server tests and bench/agent_servers.sh
# (sourced after lib.sh or an equivalent: TMP, cleanup_hooks): own config
# and data under $TMP, loopback only, started and stopped by pid.

# nginx_start PORT: two workers answering "hotcold" on 127.0.0.1:PORT (pid in ngpid)
nginx_start() {
	local ng=$TMP/nginx
	mkdir -p "$ng"
	cat > "$ng/nginx.conf" <<NGX
daemon off;
worker_processes 2;
pid $ng/nginx.pid;
error_log $ng/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $ng/body;
	proxy_temp_path $ng/proxy;
	fastcgi_temp_path $ng/fastcgi;
	uwsgi_temp_path $ng/uwsgi;
	scgi_temp_path $ng/scgi;
	server {
		listen 127.0.0.1:$1;
		location / { return 200 "hotcold\n"; }
	}
}
NGX
	/usr/sbin/nginx -c "$ng/nginx.conf" -p "$ng" 2>"$TMP/nginx.log" &
	ngpid=$!
	cleanup_hooks+=("kill -QUIT $ngpid 2>/dev/null; wait $ngpid 2>/dev/null")
}

# redis_start PORT: no persistence, data in $TMP/redis (pid in rdpid)
redis_start() {
	mkdir -p "$TMP/redis"
	/usr/bin/redis-server --bind 127.0.0.1 --port "$1" --save '' --appendonly no \
		--dir "$TMP/redis" --daemonize no >"$TMP/redis.log" 2>&1 &
	rdpid=$!
	cleanup_hooks+=("kill -TERM $rdpid 2>/dev/null; wait $rdpid 2>/dev/null")
}
