#!/usr/bin/env bash
# Runs a command with the project's toolchain on a fresh machine:
#   bash scripts/run.sh ctxmem compact examples/conversations/agent-session.json --budget 3000
#   bash scripts/run.sh pnpm test
# Installs Node >= 22 and pnpm when needed, the dependencies from the lockfile, and builds once.
set -euo pipefail
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
exec "$@"
