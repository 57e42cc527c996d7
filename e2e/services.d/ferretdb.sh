# FerretDB for the storage tests: a MongoDB wire-protocol server on 127.0.0.1:27018 (mongodb://127.0.0.1:27018, no
# authentication), on its SQLite back end with its data in $SVC_STATE/data, telemetry off.
#
# There is no Debian package of FerretDB 1.x, so it is built from the Go module proxy: the module's source at the
# pinned version (`go mod download`), with build/version/version.txt written (FerretDB's own build does that from
# git; without it a build of the module panics at start), compiled with the machine's Go (1.24 or newer, as the
# module's go.mod says) into .cache/ferretdb-$version/ferretdb once. A cold build (empty Go caches) takes 2 to 5
# minutes on two cores; later `up`s start the cached binary. The data survives `down`/`up`, as a real server's would;
# the tests use database names of their own.
#
# FerretDB 1.x does not implement everything MongoDB does (a TTL index answers "not implemented", code 238, for one):
# code tested against it must find out what the server supports rather than assume a MongoDB.
#
# Health is a real `ping` command: an OP_MSG {ping: 1, $db: "admin"} over the wire, answered {ok: 1} (a few lines of
# the machine's python3, so the check needs no driver and no node_modules).

ferretdb_version=1.24.2
ferretdb_port=27018

svc_port() { echo "$ferretdb_port"; }

ferretdb_dir() {
  local root
  root="$(cd "$E2E_STATE/../.." && pwd)"
  echo "${THREATLIB_CACHE_DIR:-$root/.cache}/ferretdb-$ferretdb_version"
}

svc_install() {
  if ! command -v python3 >/dev/null 2>&1; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "ferretdb: python3 (for the health check) is missing and apt-get is missing; install python3" >&2
      return 1
    fi
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends python3
  fi
  local dir
  dir="$(ferretdb_dir)"
  if [ -x "$dir/ferretdb" ]; then return 0; fi
  if ! command -v go >/dev/null 2>&1; then
    # Debian's golang is older than the 1.24 the module needs; the machine's own Go is used.
    echo "ferretdb: go is not on PATH; FerretDB $ferretdb_version is built with Go 1.24 or newer" >&2
    return 1
  fi
  echo "ferretdb: building FerretDB $ferretdb_version from the Go module proxy (a few minutes, once)" >&2
  local started=$SECONDS src
  mkdir -p "$dir"
  src="$(cd "$dir" && go mod download -json "github.com/FerretDB/FerretDB@v$ferretdb_version" 2>"$SVC_STATE/build.log" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  if [ -z "$src" ] || [ ! -f "$src/go.mod" ]; then
    echo "ferretdb: go mod download failed; see $SVC_STATE/build.log" >&2
    tail -n 20 "$SVC_STATE/build.log" >&2
    return 1
  fi
  # The module cache is read-only; the build needs the version file inside the source tree.
  rm -rf "$dir/src" "$dir/ferretdb.partial"
  cp -R "$src" "$dir/src"
  chmod -R u+w "$dir/src"
  echo "v$ferretdb_version" >"$dir/src/build/version/version.txt"
  (
    cd "$dir/src"
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$dir/ferretdb.partial" ./cmd/ferretdb
  ) >>"$SVC_STATE/build.log" 2>&1 || {
    echo "ferretdb: go build failed; see $SVC_STATE/build.log" >&2
    tail -n 20 "$SVC_STATE/build.log" >&2
    return 1
  }
  mv "$dir/ferretdb.partial" "$dir/ferretdb"
  rm -rf "$dir/src"
  echo "ferretdb: built in $((SECONDS - started)) s" >&2
}

svc_start() {
  if svc_healthy; then return 0; fi
  mkdir -p "$SVC_STATE/data"
  rm -f "$SVC_STATE/ferretdb.pid"
  # A session of its own: the server must outlive the shell (and the test process) that started it. The subshell
  # execs setsid, which execs ferretdb, so $! is the server's pid. --debug-addr=- turns off its HTTP debug listener
  # (metrics, pprof), which would take another port.
  (exec setsid "$(ferretdb_dir)/ferretdb" \
    --handler=sqlite \
    --sqlite-url="file:$SVC_STATE/data/" \
    --listen-addr="127.0.0.1:$ferretdb_port" \
    --debug-addr=- \
    --state-dir="$SVC_STATE" \
    --telemetry=disable \
    --log-level=warn) >"$SVC_STATE/ferretdb.log" 2>&1 </dev/null &
  echo $! >"$SVC_STATE/ferretdb.pid"
}

svc_stop() {
  svc_stop_pid "$SVC_STATE/ferretdb.pid" 15 kill
  svc_wait_closed ferretdb "$ferretdb_port"
}

svc_healthy() {
  # No separate port probe first: FerretDB logs a warning for every connection closed without a message.
  command -v python3 >/dev/null 2>&1 || return 1
  python3 - "$ferretdb_port" <<'EOF'
import socket, struct, sys

# OP_MSG (opcode 2013), no flags, one body section: {ping: 1, $db: "admin"}.
body = b"\x10ping\x00" + struct.pack("<i", 1) + b"\x02$db\x00" + struct.pack("<i", 6) + b"admin\x00"
doc = struct.pack("<i", 4 + len(body) + 1) + body + b"\x00"
msg = struct.pack("<iiii", 16 + 4 + 1 + len(doc), 1, 0, 2013) + struct.pack("<I", 0) + b"\x00" + doc


def read(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            sys.exit(1)
        data += chunk
    return data


try:
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3) as sock:
        sock.sendall(msg)
        length, _, response_to, opcode = struct.unpack("<iiii", read(sock, 16))
        reply = read(sock, length - 16)
except OSError:
    sys.exit(1)
# The reply answers our request 1 and carries ok: 1.0 (a BSON double).
ok = b"\x01ok\x00" + struct.pack("<d", 1.0)
sys.exit(0 if opcode == 2013 and response_to == 1 and ok in reply else 1)
EOF
}
