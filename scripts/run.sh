#!/usr/bin/env bash
# Runs a command with the project's toolchain on a fresh machine:
#   bash scripts/run.sh ctxmem compact examples/conversations/agent-session.json --budget 3000
#   bash ~/ctxmem/scripts/run.sh ctxmem compact my-body.json --budget 8k --out small.json  (from any folder)
#   cat body.json | bash scripts/run.sh ctxmem compact - --budget 8k > small.json
#   bash scripts/run.sh example ai-sdk-chat --demo    (an example under examples/, packages built first)
#   bash scripts/run.sh pnpm test
# Installs Node >= 22 and pnpm when needed, the dependencies from the lockfile, and builds once.
set -euo pipefail
# The CLI resolves relative paths (input, --out, --store…) against the caller's folder, not the
# repository this script changes to. An outer wrapper's value wins.
export CTXMEM_CALLER_CWD="${CTXMEM_CALLER_CWD:-$PWD}"
cd "$(dirname "$0")/.."
# shellcheck source=scripts/toolchain.sh
source scripts/toolchain.sh

if [ ! -d node_modules ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  pnpm install --frozen-lockfile >&2
fi
if [ "${1:-}" = "ctxmem" ]; then
  shift
  if [ ! -f packages/cli/dist/bin.js ] || [ -n "$(find packages/core/src packages/cli/src -newer packages/cli/dist/bin.js -name '*.ts' -print -quit)" ]; then
    pnpm --filter @ctxmem/cli... run build >&2
  fi
  exec node packages/cli/dist/bin.js "$@"
fi
if [ "${1:-}" = "example" ]; then
  name="${2:-}"
  if [ -z "$name" ] || [ ! -f "examples/$name/package.json" ]; then
    echo "usage: bash scripts/run.sh example <name> [arguments]; examples: $(cd examples && ls -d */ | tr -d / | grep -v conversations | tr '\n' ' ')" >&2
    exit 2
  fi
  shift 2
  # The examples import the packages' built output: build what this one depends on when stale.
  stamp="node_modules/.ctxmem-example-built-$name"
  if [ ! -f "$stamp" ] || [ -n "$(find packages/*/src packages/*/package.json -newer "$stamp" -print -quit)" ]; then
    pnpm --filter "@ctxmem/example-$name^..." run build >&2
    touch "$stamp"
  fi
  exec pnpm --silent --filter "@ctxmem/example-$name" start "$@"
fi
exec "$@"
