#!/usr/bin/env bash
# Fuzzes a running threatlib REST server from its own OpenAPI document with schemathesis (PyPI).
#
#   e2e/fuzz/schemathesis.sh BASE_URL TOKEN [extra schemathesis args...]
#
# BASE_URL is the server's root (http://127.0.0.1:8080); its /openapi.json, which lists every mounted route, is the
# schema. TOKEN is a bearer token the server accepts. schemathesis is installed once, pinned, into a virtualenv under
# .cache/ (the machine's Python is used only to create it). Which checks run, and why some statuses count as
# expected, is in schemathesis.toml beside this script; hooks.py adds our own checks. Exit status is schemathesis'
# own: 0 means no check failed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="4.32.5"
venv="${THREATLIB_CACHE_DIR:-$root/.cache}/schemathesis-$version"

base_url="${1:?usage: schemathesis.sh BASE_URL TOKEN [args...]}"
token="${2:?usage: schemathesis.sh BASE_URL TOKEN [args...]}"
shift 2

# A venv's scripts carry its absolute path, so it is built in place; the marker says the install finished.
if [ ! -f "$venv/.installed" ]; then
  python="$(command -v python3 || true)"
  [ -n "$python" ] || { echo "schemathesis: python3 is needed to create its virtualenv" >&2; exit 2; }
  echo "schemathesis: installing schemathesis $version into $venv" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >&2
  touch "$venv/.installed"
fi

# Our own checks (hooks.py: no answer repeats the bearer token sent) run beside schemathesis' own.
export SCHEMATHESIS_HOOKS="$here/hooks.py"

# Its example database and crash files go to the ignored state folder, not the source tree.
mkdir -p "$here/../.state/schemathesis"
cd "$here/../.state/schemathesis"
exec "$venv/bin/st" --config-file "$here/schemathesis.toml" run "${base_url%/}/openapi.json" \
  --url "${base_url%/}" \
  --header "Authorization: Bearer $token" \
  "$@"
