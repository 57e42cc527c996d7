#!/usr/bin/env bash
# Runs PyMISP (PyPI, the MISP project's own library) over MISP feeds, for the interoperability tests.
#
#   e2e/tools/pymisp.sh check <directory>              read a feed as MISP and PyMISP do; a JSON report on stdout
#   e2e/tools/pymisp.sh generate <directory> < spec    write a feed with PyMISP's MISPEvent.to_feed and feed_meta_generator
#   e2e/tools/pymisp.sh --install                      install only
#
# See misp_feed.py beside this script for what each command does and which MISP source it follows. PyMISP is
# installed once, every package pinned (pymisp.requirements.txt), into a virtualenv under .cache/ (the machine's
# python3 is used only to create it), as stix-validators.sh installs the STIX validators.
# Exit status: 0 when the command ran (whatever it found), 2 when PyMISP could not be installed or the input read.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
requirements="$here/pymisp.requirements.txt"
# The venv's name carries a digest of the requirements: changing a pin makes a new one instead of reusing the old.
digest="$(sha256sum "$requirements" | cut -c1-12)"
cache="${THREATLIB_CACHE_DIR:-$root/.cache}"
venv="$cache/pymisp-$digest"

install() {
  if [ -f "$venv/.installed" ]; then return 0; fi
  local python
  python="$(command -v python3 || true)"
  [ -n "$python" ] || { echo "pymisp: python3 is needed to create PyMISP's virtualenv" >&2; return 2; }
  # (Called as `install || exit 2`, where set -e does not apply: every step checks its own status.)
  mkdir -p "$cache" || { echo "pymisp: cannot create $cache" >&2; return 2; }
  # Test files may ask for PyMISP at the same moment; one installs, the others wait for it.
  exec 9>"$venv.lock" || return 2
  flock 9 || { echo "pymisp: cannot lock $venv.lock" >&2; return 2; }
  if [ -f "$venv/.installed" ]; then return 0; fi
  echo "pymisp: installing PyMISP into $venv" >&2
  rm -rf "$venv" || return 2
  # A venv's scripts carry its absolute path, so it is built in place; the marker says the install finished.
  "$python" -m venv "$venv" >&2 || { echo "pymisp: python3 -m venv failed (is python3-venv installed?)" >&2; return 2; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements" >&2 || {
    echo "pymisp: pip install failed" >&2
    return 2
  }
  touch "$venv/.installed"
}

install || exit 2
if [ "${1:-}" = "--install" ]; then exit 0; fi
exec "$venv/bin/python" "$here/misp_feed.py" "$@"
