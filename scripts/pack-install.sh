#!/usr/bin/env bash
# Uses the packages from a clone in another project, as a registry release would be used: builds
# the packages (when stale), packs each with `pnpm pack` (workspace ranges become real versions)
# and installs the tarballs there with `npm install`, which also installs their peer dependencies.
#
#   bash scripts/pack-install.sh ~/my-app                    # every package
#   bash scripts/pack-install.sh ~/my-app core ai-sdk cli    # some (core is always added)
#   bash scripts/pack-install.sh --check "$(mktemp -d)"      # then import each one and run the CLI
#
# The tarballs stay in <project>/ctxmem-packages/, so its package.json points at files that exist.
# @ctxmem/hnswlib compiles hnswlib-node (python3, make, a C++ compiler): it is installed only when
# named.
set -euo pipefail
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
target="${1:?usage: bash scripts/pack-install.sh [--check] <project-folder> [package…]}"
shift
mkdir -p "$target"
target="$(cd "$target" && pwd)"
cd "$(dirname "$0")/.."
# shellcheck source=scripts/toolchain.sh
source scripts/toolchain.sh

packages=("$@")
if [ ${#packages[@]} -eq 0 ]; then packages=(core ai-sdk cli langchain postgres redis); fi
case " ${packages[*]} " in *" core "*) ;; *) packages=(core "${packages[@]}") ;; esac
for name in "${packages[@]}"; do
  [ -f "packages/$name/package.json" ] || { echo "pack-install: no package packages/$name" >&2; exit 2; }
done

if [ ! -d node_modules ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  pnpm install --frozen-lockfile >&2
fi
# Build when a package's output is missing or older than its sources (CI has just built them);
# CTXMEM_PACK_NO_BUILD=1 packs what is built.
for name in "${packages[@]}"; do
  [ "${CTXMEM_PACK_NO_BUILD:-}" = 1 ] && break
  output="packages/$name/dist/index.js"
  if [ ! -f "$output" ] || [ -n "$(find "packages/$name/src" packages/core/src -name '*.ts' -newer "$output" -print -quit)" ]; then
    pnpm build >&2
    break
  fi
done

tarballs="$target/ctxmem-packages"
mkdir -p "$tarballs"
files=()
for name in "${packages[@]}"; do
  file="$(cd "packages/$name" && pnpm pack --pack-destination "$tarballs" | tail -n 1)"
  files+=("./ctxmem-packages/$(basename "$file")")
done

cd "$target"
[ -f package.json ] || printf '{ "name": "ctxmem-try", "private": true, "type": "module" }\n' > package.json
npm install --no-audit --no-fund --prefer-offline --loglevel=error "${files[@]}" >&2
echo "pack-install: installed ${packages[*]/#/@ctxmem/} into $target" >&2

if [ "$check" = 1 ]; then
  {
    for name in "${packages[@]}"; do
      echo "import * as m_${name//-/_} from '@ctxmem/$name';"
    done
    echo "const modules = { $(for name in "${packages[@]}"; do printf "'@ctxmem/%s': m_%s, " "$name" "${name//-/_}"; done) };"
    echo "for (const [name, module] of Object.entries(modules)) {"
    echo "  if (Object.keys(module).length === 0) throw new Error(name + ' exports nothing');"
    echo "  console.log(name, Object.keys(module).length, 'exports');"
    echo "}"
  } > ctxmem-import-check.mjs
  node ctxmem-import-check.mjs
  # The counter reads these instead of building the ranks (and silently builds them when absent).
  for encoding in o200k_base cl100k_base; do
    [ -s "node_modules/@ctxmem/core/dist/vocabulary/$encoding.bin" ] ||
      { echo "pack-install: @ctxmem/core has no dist/vocabulary/$encoding.bin" >&2; exit 1; }
  done
  echo "@ctxmem/core vocabulary files: ok"
  case " ${packages[*]} " in
    *" cli "*)
      printf '{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}' |
        npx --no-install ctxmem compact - --budget 1000 > /dev/null 2> ctxmem-cli-check.log ||
        { cat ctxmem-cli-check.log >&2; exit 1; }
      echo "ctxmem compact - --budget 1000: ok"
      ;;
  esac
fi
