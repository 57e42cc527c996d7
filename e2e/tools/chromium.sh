#!/usr/bin/env bash
# Chromium for the browser tests: Debian's `chromium` package, at /usr/bin/chromium (THREATLIB_CHROMIUM names another
# binary). Idempotent: installs the package only when the binary is missing, then prints `chromium --version`.
#
#   e2e/tools/chromium.sh            install if needed, print the version
#   e2e/tools/chromium.sh --check    print the version, or say it is missing (exit 1); installs nothing
#
# Playwright (the `playwright` package, pinned exactly in the catalog) drives this binary through
# `launchOptions.executablePath`; no test tool downloads a browser of its own (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 in
# ./dev, and `playwright` has no install script). The flags every launch uses, and why, are in e2e/browser/chromium.ts
# (with the rest of the browser tests' harness). ./dev test runs this before the tests; the browser tests skip with a message when Chromium is missing
# and THREATLIB_E2E is unset, and fail when it is set.
# Exit status: 0 when Chromium runs, 1 when it is missing (--check) or could not be installed.
set -euo pipefail
chromium="${THREATLIB_CHROMIUM:-/usr/bin/chromium}"

version() {
  # Chromium prints its version without starting a browser; it needs no display and no profile for that.
  "$chromium" --version 2>/dev/null
}

if [ -x "$chromium" ] && version; then exit 0; fi
if [ "${1:-}" = "--check" ]; then
  echo "chromium: $chromium is missing (e2e/tools/chromium.sh installs Debian's chromium package)" >&2
  exit 1
fi
if [ -n "${THREATLIB_CHROMIUM:-}" ]; then
  echo "chromium: THREATLIB_CHROMIUM=$chromium does not run; unset it to use Debian's package" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium: $chromium is missing and apt-get is missing; install Chromium and set THREATLIB_CHROMIUM" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "chromium: installing Debian's chromium package" >&2
$sudo apt-get update >&2
# fonts-liberation is only recommended; without a font, a page's text is blank in screenshots.
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends chromium fonts-liberation >&2
version || {
  echo "chromium: installed, but \`$chromium --version\` fails" >&2
  exit 1
}
