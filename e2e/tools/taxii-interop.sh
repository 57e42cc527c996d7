#!/usr/bin/env bash
# Runs the OASIS reference TAXII 2.1 implementations (PyPI) for the interoperability tests (e2e/tests/taxii/):
#
#   e2e/tools/taxii-interop.sh --install                       install only
#   e2e/tools/taxii-interop.sh medallion PORT CONFIG.json      medallion, the reference server, on 127.0.0.1:PORT
#   e2e/tools/taxii-interop.sh client < request.json           taxii2-client, the reference client (taxii_client.py)
#
# Both are installed once, every package pinned (taxii-interop.requirements.txt), into a virtualenv under .cache/ (the
# machine's python3 is used only to create it), as stix-validators.sh installs the STIX validators. medallion runs in
# the foreground until it is killed; the tests start one per test file on a free port, with a data file of their own.
# Exit status: that of the tool, or 2 when the tools could not be installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
requirements="$here/taxii-interop.requirements.txt"
# The venv's name carries a digest of the requirements: changing a pin makes a new one instead of reusing the old.
digest="$(sha256sum "$requirements" | cut -c1-12)"
cache="${THREATLIB_CACHE_DIR:-$root/.cache}"
venv="$cache/taxii-interop-$digest"

install() {
  if [ -f "$venv/.installed" ]; then return 0; fi
  local python
  python="$(command -v python3 || true)"
  [ -n "$python" ] || { echo "taxii-interop: python3 is needed to create the tools' virtualenv" >&2; return 2; }
  mkdir -p "$cache" || { echo "taxii-interop: cannot create $cache" >&2; return 2; }
  # Test files may ask for the tools at the same moment; one installs, the others wait for it.
  exec 9>"$venv.lock" || return 2
  flock 9 || { echo "taxii-interop: cannot lock $venv.lock" >&2; return 2; }
  if [ -f "$venv/.installed" ]; then return 0; fi
  echo "taxii-interop: installing medallion and taxii2-client into $venv" >&2
  rm -rf "$venv" || return 2
  # A venv's scripts carry its absolute path, so it is built in place; the marker says the install finished.
  "$python" -m venv "$venv" >&2 || { echo "taxii-interop: python3 -m venv failed (is python3-venv installed?)" >&2; return 2; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements" >&2 || {
    echo "taxii-interop: pip install failed" >&2
    return 2
  }
  touch "$venv/.installed"
}

install || exit 2
case "${1:-}" in
  --install) exit 0 ;;
  medallion)
    [ "$#" -eq 3 ] || { echo "usage: taxii-interop.sh medallion PORT CONFIG.json" >&2; exit 2; }
    exec "$venv/bin/medallion" --host 127.0.0.1 --port "$2" --log-level ERROR "$3"
    ;;
  client) exec "$venv/bin/python" "$here/taxii_client.py" ;;
  *)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
