#!/usr/bin/env bash
# Packs what a lent many-core machine without Node needs into .devcarry/
# (git-ignored through .git/info/exclude): this machine's node binary (xz),
# the built package (dist/, the wasm kernels) with its production
# dependencies and tsx, and the native-ceiling C source from ../shared/bench.
# bench/device/run-carried.sh unpacks it there.
#
#   npm run build && bash bench/device/make-carry.sh   # then carry .devcarry
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '.devcarry/' .git/info/exclude 2>/dev/null || echo '.devcarry/' >> "$(git rev-parse --git-common-dir)/info/exclude"
mkdir -p .devcarry/shared && rm -f .devcarry/built.tar.xz
# The node binary changes only with the machine's Node: kept when it is there.
[ -s .devcarry/node.xz ] || xz -T2 -6 -c "$(command -v node)" > .devcarry/node.xz
cp ../shared/bench/* .devcarry/shared/
# Production dependencies and tsx (for the TypeScript benchmarks), as npm resolved them here.
deps=$( { npm ls --omit=dev --all --parseable 2>/dev/null; printf "%s\n" node_modules/tsx node_modules/esbuild node_modules/@esbuild/linux-x64; } | grep "node_modules/" | sed "s#^$PWD/##" | sort -u)
tar -cJf .devcarry/built.tar.xz dist src/engine/wasm/*.generated.ts $deps
# The quality benchmark's public sets (bench/public-data.sh), when they are here: ≈ 5 MB compressed.
rm -f .devcarry/data-public.tar.xz
[ -d bench/data-public ] && tar -cf - bench/data-public | xz -T2 -6 > .devcarry/data-public.tar.xz
# The src tree the quality cells are keyed by (the copy there has no .git).
git rev-parse HEAD:src > .devcarry/src-tree
du -sh .devcarry/*
