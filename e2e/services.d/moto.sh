# moto for the cloud tests: moto's server mode on 127.0.0.1:15000, one endpoint for every AWS service it emulates (the
# tests use S3, path-style: http://127.0.0.1:15000/BUCKET/KEY; any access key and secret, region us-east-1).
#
# moto[server] is installed once, pinned, from PyPI into a virtualenv under .cache/ (the machine's python3 is used only
# to create it), as e2e/fuzz/schemathesis.sh installs schemathesis. moto keeps its state in memory: `down` forgets
# every bucket, and the tests use bucket names of their own. moto does not implement GuardDuty threat-intel sets; the
# cloud tests have their own emulator for those.

moto_version=5.2.5
moto_port=15000

svc_port() { echo "$moto_port"; }

moto_venv() {
  local root
  root="$(cd "$E2E_STATE/../.." && pwd)"
  echo "${THREATLIB_CACHE_DIR:-$root/.cache}/moto-$moto_version"
}

svc_install() {
  local missing=()
  if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    missing+=(python3 python3-venv)
  fi
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  if [ "${#missing[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "moto: missing ${missing[*]} and apt-get is missing; install them" >&2
      return 1
    fi
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
  fi
  local venv
  venv="$(moto_venv)"
  # A venv's scripts carry its absolute path, so it is built in place; the marker says the install finished.
  if [ -f "$venv/.installed" ]; then return 0; fi
  echo "moto: installing moto[server] $moto_version into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$moto_version" \
    >"$SVC_STATE/pip.log" 2>&1 || {
    echo "moto: pip install failed; see $SVC_STATE/pip.log" >&2
    tail -n 20 "$SVC_STATE/pip.log" >&2
    return 1
  }
  touch "$venv/.installed"
}

svc_start() {
  if svc_healthy; then return 0; fi
  rm -f "$SVC_STATE/moto.pid"
  # A session of its own: the server must outlive the shell (and the test process) that started it. The subshell
  # execs setsid, which execs moto_server (a single process: no reloader), so $! is the server's pid.
  (exec setsid "$(moto_venv)/bin/moto_server" -H 127.0.0.1 -p "$moto_port") >"$SVC_STATE/moto.log" 2>&1 </dev/null &
  echo $! >"$SVC_STATE/moto.pid"
}

svc_stop() {
  svc_stop_pid "$SVC_STATE/moto.pid" 10 kill
  svc_wait_closed moto "$moto_port"
}

svc_healthy() {
  command -v curl >/dev/null 2>&1 || return 1
  # S3's ListBuckets (moto accepts it unsigned): the answer proves the S3 back end, not just a listening port.
  curl -s --max-time 5 "http://127.0.0.1:$moto_port/" 2>/dev/null | grep -q '<ListAllMyBucketsResult'
}
