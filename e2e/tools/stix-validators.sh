#!/usr/bin/env bash
# Runs the OASIS STIX validators (stix2-patterns and stix2-validator, PyPI) over STIX patterns and bundles.
#
#   e2e/tools/stix-validators.sh < request.json > verdicts.json
#   e2e/tools/stix-validators.sh --install       install only
#
# The request is JSON: {"patterns": [...], "bundles": [...]}; the answer says, for each, what the validators found
# (see stix_validate.py beside this script, which also lists the two SHOULD checks threatlib departs from, and why).
# The validators are installed once, every package pinned (stix-validators.requirements.txt), into a virtualenv under
# .cache/ (the machine's python3 is used only to create it), as e2e/fuzz/schemathesis.sh installs schemathesis.
# Exit status: 0 when the validators ran (whatever they found), 2 when they could not be installed or run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
requirements="$here/stix-validators.requirements.txt"
# The venv's name carries a digest of the requirements: changing a pin makes a new one instead of reusing the old.
digest="$(sha256sum "$requirements" | cut -c1-12)"
cache="${THREATLIB_CACHE_DIR:-$root/.cache}"
venv="$cache/stix-validators-$digest"

install() {
  if [ -f "$venv/.installed" ]; then return 0; fi
  local python
  python="$(command -v python3 || true)"
  [ -n "$python" ] || { echo "stix-validators: python3 is needed to create the validators' virtualenv" >&2; return 2; }
  # (Called as `install || exit 2`, where set -e does not apply: every step checks its own status.)
  mkdir -p "$cache" || { echo "stix-validators: cannot create $cache" >&2; return 2; }
  # Test files may ask for the validators at the same moment; one installs, the others wait for it.
  exec 9>"$venv.lock" || return 2
  flock 9 || { echo "stix-validators: cannot lock $venv.lock" >&2; return 2; }
  if [ -f "$venv/.installed" ]; then return 0; fi
  echo "stix-validators: installing stix2-patterns and stix2-validator into $venv" >&2
  rm -rf "$venv" || return 2
  # A venv's scripts carry its absolute path, so it is built in place; the marker says the install finished.
  "$python" -m venv "$venv" >&2 || { echo "stix-validators: python3 -m venv failed (is python3-venv installed?)" >&2; return 2; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements" >&2 || {
    echo "stix-validators: pip install failed" >&2
    return 2
  }
  touch "$venv/.installed"
}

install || exit 2
if [ "${1:-}" = "--install" ]; then exit 0; fi
exec "$venv/bin/python" "$here/stix_validate.py"
