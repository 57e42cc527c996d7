# rsyslog for the syslog transport tests: a private rsyslogd listening on 127.0.0.1:15514 over UDP and TCP, state in
# $SVC_STATE.
#
# Debian's rsyslog package is used only for its binary and modules. The daemon here reads its own configuration
# ($SVC_STATE/rsyslog.conf, never /etc/rsyslog.conf), keeps its own pid file and work directory, is not managed by
# systemd, and loads only imudp and imtcp (no imuxsock, no imklog: it neither reads nor disturbs the machine's
# logging). Everything it receives is written to $SVC_STATE/messages.log with RSYSLOG_SyslogProtocol23Format, which
# writes each message back in RFC 5424 form (PRI, version, timestamp, host, app-name, procid, msgid, structured
# data, message), so a test can check each field it sent. The default parser chain tries pmrfc5424 first.

rsyslog_port=15514

svc_port() { echo "$rsyslog_port"; }

rsyslog_bin() {
  if command -v rsyslogd >/dev/null 2>&1; then command -v rsyslogd; return 0; fi
  if [ -x /usr/sbin/rsyslogd ]; then echo /usr/sbin/rsyslogd; return 0; fi
  return 1
}

svc_install() {
  if rsyslog_bin >/dev/null; then return 0; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "rsyslog: rsyslogd is missing and apt-get is missing; install rsyslog" >&2
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends rsyslog
  # On a machine with systemd the package enables the system's rsyslog; it listens on no network port, so it is
  # left alone: ours shares nothing with it.
}

rsyslog_write_config() {
  mkdir -p "$SVC_STATE/work"
  cat >"$SVC_STATE/rsyslog.conf" <<EOF
global(workDirectory="$SVC_STATE/work" maxMessageSize="64k")
module(load="imudp")
module(load="imtcp")
input(type="imudp" address="127.0.0.1" port="$rsyslog_port")
input(type="imtcp" address="127.0.0.1" port="$rsyslog_port")
# Every message, as RFC 5424, to one file the tests read.
action(type="omfile" file="$SVC_STATE/messages.log" template="RSYSLOG_SyslogProtocol23Format")
EOF
}

svc_start() {
  if svc_healthy; then return 0; fi
  local bin
  bin="$(rsyslog_bin)" || { echo "rsyslog: rsyslogd not found" >&2; return 1; }
  rsyslog_write_config
  "$bin" -N1 -f "$SVC_STATE/rsyslog.conf" >"$SVC_STATE/rsyslog.log" 2>&1 || {
    echo "rsyslog: configuration refused:" >&2
    cat "$SVC_STATE/rsyslog.log" >&2
    return 1
  }
  # A pid file left by a crashed daemon names a process that is gone (or, worse, reused); svc_stop must not kill it.
  rm -f "$SVC_STATE/rsyslogd.pid"
  # rsyslogd forks into the background by itself (no -n): it outlives the shell that started it.
  "$bin" -f "$SVC_STATE/rsyslog.conf" -i "$SVC_STATE/rsyslogd.pid" >>"$SVC_STATE/rsyslog.log" 2>&1
}

svc_stop() {
  svc_stop_pid "$SVC_STATE/rsyslogd.pid" 5
  svc_wait_closed rsyslog "$rsyslog_port"
}

svc_healthy() {
  # The TCP listener answering is the sign the daemon is up (imudp and imtcp start together).
  (exec 3<>"/dev/tcp/127.0.0.1/$rsyslog_port") 2>/dev/null
}
