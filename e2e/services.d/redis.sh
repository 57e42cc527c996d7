# Redis for the kvserver cache tests: a private redis-server on 127.0.0.1:16379, state in $SVC_STATE.
#
# The distro package is used only for its binaries. Debian's package also enables and starts a redis on 6379; nothing
# here depends on it, and a machine without systemd (a container) never runs it at all, so we never rely on it.
# Persistence is off (--save '' --appendonly no): the tests only need a live server, and a stale dump must not leak
# keys from one run into the next.

redis_port=16379

svc_port() { echo "$redis_port"; }

svc_install() {
  if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then return 0; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "redis: redis-server is not on PATH and apt-get is missing; install redis-server and redis-tools" >&2
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends redis-server redis-tools
}

svc_start() {
  if svc_healthy; then return 0; fi
  # A pid file left by a crashed server names a process that is gone (or, worse, reused); svc_stop must not kill it.
  rm -f "$SVC_STATE/redis.pid"
  redis-server \
    --daemonize yes \
    --bind 127.0.0.1 \
    --port "$redis_port" \
    --dir "$SVC_STATE" \
    --pidfile "$SVC_STATE/redis.pid" \
    --logfile "$SVC_STATE/redis.log" \
    --save '' \
    --appendonly no \
    --protected-mode yes
}

svc_stop() {
  if command -v redis-cli >/dev/null 2>&1 && svc_healthy; then
    # NOSAVE: persistence is off anyway, and a save attempt would only slow the shutdown.
    redis-cli -h 127.0.0.1 -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  fi
  svc_stop_pid "$SVC_STATE/redis.pid" 5
  svc_wait_closed redis "$redis_port"
}

svc_healthy() {
  command -v redis-cli >/dev/null 2>&1 || return 1
  [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = "PONG" ]
}
