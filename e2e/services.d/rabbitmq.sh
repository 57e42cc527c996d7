# RabbitMQ for the queue tests: a private node threatlib@localhost on 127.0.0.1:5672, state in $SVC_STATE.
#
# Debian's rabbitmq-server package is used only for its files. The node is started here (not by systemd or the init
# script) from /usr/lib/rabbitmq/bin, with its own mnesia, log, config, enabled-plugins (none: no management UI) and
# Erlang cookie ($HOME is $SVC_STATE for the server and the CLI alike), so it neither reads nor disturbs a system
# node. Everything listens on loopback: AMQP on 5672, Erlang distribution on 25672, epmd on 4369.
# The guest user (default password) may connect from loopback only, which is all the tests do.

rabbitmq_port=5672
rabbitmq_dist_port=25672
rabbitmq_node=threatlib@localhost
rabbitmq_bin=/usr/lib/rabbitmq/bin

svc_port() { echo "$rabbitmq_port"; }

# The environment the server and the CLI tools share; each call runs in a subshell so nothing leaks into the caller.
rabbitmq_env() {
  export HOME="$SVC_STATE"
  export RABBITMQ_NODENAME="$rabbitmq_node"
  export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
  export RABBITMQ_NODE_PORT="$rabbitmq_port"
  export RABBITMQ_DIST_PORT="$rabbitmq_dist_port"
  export RABBITMQ_MNESIA_BASE="$SVC_STATE/mnesia"
  export RABBITMQ_LOG_BASE="$SVC_STATE/log"
  export RABBITMQ_PID_FILE="$SVC_STATE/rabbitmq.pid"
  export RABBITMQ_CONFIG_FILE="$SVC_STATE/rabbitmq.conf"
  export RABBITMQ_ADVANCED_CONFIG_FILE="$SVC_STATE/advanced.config"
  export RABBITMQ_CONF_ENV_FILE="$SVC_STATE/rabbitmq-env.conf"
  export RABBITMQ_ENABLED_PLUGINS_FILE="$SVC_STATE/enabled_plugins"
  export ERL_EPMD_ADDRESS=127.0.0.1
  export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
}

rabbitmq_cli() {
  (
    rabbitmq_env
    "$rabbitmq_bin/$1" -n "$rabbitmq_node" "${@:2}"
  )
}

svc_install() {
  if [ -x "$rabbitmq_bin/rabbitmq-server" ] && [ -x "$rabbitmq_bin/rabbitmq-diagnostics" ]; then return 0; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "rabbitmq: $rabbitmq_bin/rabbitmq-server is missing and apt-get is missing; install rabbitmq-server" >&2
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends rabbitmq-server
  # On a machine with systemd the package starts its own node on 0.0.0.0:5672, which would take our port.
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet rabbitmq-server 2>/dev/null; then
    echo "rabbitmq: stopping and disabling the distribution's rabbitmq-server service (it holds port 5672)" >&2
    $sudo systemctl disable --now rabbitmq-server || true
  fi
}

rabbitmq_write_config() {
  mkdir -p "$SVC_STATE/mnesia" "$SVC_STATE/log"
  cat >"$SVC_STATE/rabbitmq.conf" <<EOF
listeners.tcp.default = 127.0.0.1:$rabbitmq_port
loopback_users.guest = true
log.console = false
log.file.level = warning
# The tests publish bursts of 10,000 small messages; the default alarms only matter on a nearly full machine.
disk_free_limit.absolute = 50MB
vm_memory_high_watermark.relative = 0.4
EOF
  echo '[].' >"$SVC_STATE/enabled_plugins"
  : >"$SVC_STATE/rabbitmq-env.conf"
}

svc_start() {
  if svc_healthy; then return 0; fi
  rabbitmq_write_config
  rm -f "$SVC_STATE/rabbitmq.pid"
  # A session of its own: the node must outlive the shell (and the test process) that started it.
  (
    rabbitmq_env
    exec setsid "$rabbitmq_bin/rabbitmq-server"
  ) >"$SVC_STATE/rabbitmq.log" 2>&1 </dev/null &
  echo $! >"$SVC_STATE/server.pid"
}

svc_stop() {
  if [ -x "$rabbitmq_bin/rabbitmqctl" ]; then
    # `shutdown` returns once the node's OS process has exited.
    rabbitmq_cli rabbitmqctl -q shutdown >/dev/null 2>&1 || true
  fi
  svc_stop_pid "$SVC_STATE/rabbitmq.pid" 15 kill
  svc_stop_pid "$SVC_STATE/server.pid" 15 kill
  svc_wait_closed rabbitmq "$rabbitmq_port"
}

rabbitmq_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$rabbitmq_port") 2>/dev/null
}

svc_healthy() {
  [ -x "$rabbitmq_bin/rabbitmq-diagnostics" ] || return 1
  # The cheap check first: the CLI takes a second to boot its own Erlang VM.
  rabbitmq_port_open || return 1
  rabbitmq_cli rabbitmq-diagnostics -q ping >/dev/null 2>&1
}
