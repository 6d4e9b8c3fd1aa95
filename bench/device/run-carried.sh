#!/usr/bin/env bash
# On a lent machine without Node: unpacks .devcarry/ (bench/device/make-carry.sh)
# and runs the measurements given as arguments. They write into a work folder;
# at the end (also after a failure or a time limit) its small files — not the
# HTML reports, chart data or raw CPU profiles, which bench/profile-summary.ts
# summarises there — are packed into ONE file, $OUT/results.tgz: a lent machine
# returns a bounded number of files, and a run's measurements are many.
#
#   bash bench/device/run-carried.sh scaling kernel determinism cpuprofile workers
#   bash bench/device/run-carried.sh ab      # this build against .devcarry/base.tar.xz (and variant-*.tar.xz), alternating
#   QUALITY_ARGS=--no-tune QUALITY_SEEDS=1,2,3 bash bench/device/run-carried.sh quality
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p /tmp/dnode && xz -dc .devcarry/node.xz > /tmp/dnode/node && chmod +x /tmp/dnode/node
export PATH=/tmp/dnode:$PATH
tar -xJf .devcarry/built.tar.xz
out=/tmp/device-work
rm -rf "$out" && mkdir -p "$out" "${OUT:-/tmp/device-out}"
pack() { tar -czf "${OUT:-/tmp/device-out}/results.tgz" -C "$out" --exclude='*.html' --exclude='*.chart.json' --exclude='*.cpuprofile' .; }
trap pack EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" | tee "$out/machine.txt"
tsx() { node --import tsx "$@"; }
for what in "$@"; do
  case "$what" in
    scaling)
      # Short runs on every core: QSG-S2AUC, T = 400, 50,000 × 9 (1,000 labeled), each count's bytes compared.
      node bin/dsgkit.js generate --out /tmp/shuttle.arrow --rows 50000 --dim 9 --labeled 1000 --seed 1 >/dev/null
      node bin/dsgkit.js scaling --data /tmp/shuttle.arrow --learner qsg-s2auc --iterations 400 --threads 1,2,4,8,12,16 --repeats 2 --profile --out "$out/scaling-shuttle-T400" 2>&1 | tee "$out/scaling-shuttle-T400.txt"
      ;;
    kernel)
      # The WASM kernel against the native C ceiling, same run (../shared/bench beside the repository).
      mkdir -p ../shared/bench 2>/dev/null && cp .devcarry/shared/* ../shared/bench/ 2>/dev/null || true
      tsx bench/kernel.ts 8 28 128 784 2>&1 | tee "$out/kernel.txt"
      cp bench/results/kernel.json bench/results/kernel.svg "$out/" 2>/dev/null || true
      ;;
    quality)
      # dsgkit's quality cells (bench/quality.ts, no peers) on every core: one process per set × seed × learner,
      # largest sets first, one thread each, all joined into $out/quality-cells.jsonl at the end (append
      # it to bench/results/quality-cells.jsonl). QUALITY_ARGS (e.g. "--no-tune"), QUALITY_SEEDS (1,2,3),
      # QUALITY_SETS (all, largest first), QUALITY_LEARNERS (all), QUALITY_JOBS (nproc), QUALITY_SECONDS (no limit).
      # Each task's options follow its learner (xargs passes them as "$@").
      tar -xJf .devcarry/data-public.tar.xz
      export DSGKIT_SRC_TREE=$(cat .devcarry/src-tree)
      # The cells' machine: the CPU, and the threads of each cell (1, or its task's --threads), set per task below.
      export DSGKIT_CPU="$(nproc)-core$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/ (R)//g;s/(R)//g')"
      seeds=${QUALITY_SEEDS:-1,2,3}
      sets=${QUALITY_SETS:-grants,mnist,insteval,fertility,diamonds,letter,churn,satellite,dna,spam,cells,ames,musk,boston,diabetes,breast_cancer,pima,ionosphere}
      learners=${QUALITY_LEARNERS:-qsg-s2auc,dsg,tsgs3vm,frs3vm,gkm,lapsvm,qs3orao,sorao}
      # Per-task files in a scratch folder, joined into one file at the end (a lent machine returns a bounded number of files).
      cells=$(mktemp -d)
      # QUALITY_TASKS: a file of "set seed learner [options…]" lines, run in its order, instead of sets × seeds × learners.
      if [ -n "${QUALITY_TASKS:-}" ]; then cat "$QUALITY_TASKS"; else
        for s in ${sets//,/ }; do for seed in ${seeds//,/ }; do for l in ${learners//,/ }; do echo "$s $seed $l ${QUALITY_ARGS:-}"; done; done; done
      fi | timeout "${QUALITY_SECONDS:-86400}" xargs -P "${QUALITY_JOBS:-$(nproc)}" -L 1 sh -c 'set_=$0 seed=$1 l=$2; shift 2; f="'"$cells"'/$set_-$seed-$l-$$"; t=$(printf "%s\n" "$@" | sed -n "/^--threads\$/{n;p;}" | tail -n 1); DSGKIT_MACHINE="$DSGKIT_CPU, ${t:-1} thread(s) per cell" node --import tsx bench/quality.ts --no-peers --threads 1 --sets "$set_" --seeds "$seed" --learners "$l" "$@" --cells "$f.jsonl" > "$f.log" 2>&1 || echo "$set_ seed $seed $l failed: $(tail -n 1 "$f.log")"' || true
      # QUALITY_SECONDS: the run's time limit; the cells finished by then are kept, the running ones stopped (timeout's status is not a failure here).
      pkill -f "[b]ench/quality.ts --no-peers" || true
      cat "$cells"/*.jsonl > "$out/quality-cells.jsonl" 2>/dev/null || true
      wc -l < "$out/quality-cells.jsonl"
      ;;
    cpuprofile)
      # Where a short run's wall time goes, every thread: V8 CPU profiles (one file per thread) of
      # `dsgkit train` at 1 thread and at every core, T = 400 on the 50,000 × 9 file, into cpuprofile-1/ and
      # cpuprofile-N/, each summarised beside it (bench/profile-summary.ts: the calling thread's time by function).
      [ -f /tmp/shuttle.arrow ] || node bin/dsgkit.js generate --out /tmp/shuttle.arrow --rows 50000 --dim 9 --labeled 1000 --seed 1 >/dev/null
      for p in 1 "$(nproc)"; do
        node bin/dsgkit.js train --data /tmp/shuttle.arrow --learner qsg-s2auc --iterations 400 --threads "$p" --out /tmp/warm.dsg --quiet
        ( time node --cpu-prof --cpu-prof-interval 250 --cpu-prof-dir "$out/cpuprofile-$p" bin/dsgkit.js train --data /tmp/shuttle.arrow --learner qsg-s2auc --iterations 400 --threads "$p" --out /tmp/prof.dsg --quiet ) 2>&1 | tee "$out/cpuprofile-$p.txt"
        for f in "$out/cpuprofile-$p"/*.cpuprofile; do tsx bench/profile-summary.ts "$f" > "${f%.cpuprofile}.summary.txt" 2>&1 || true; done
      done
      ;;
    ab)
      # This build against a baseline build of another commit, on the same machine in the same run: the short
      # run (QSG-S2AUC, T = 400, 50,000 × 9) at 1 thread and at every core, in rounds that alternate the builds.
      # The baseline: `tar -cJf .devcarry/base.tar.xz dist bin package.json` in a built worktree of that commit.
      # Variants of this build (a change measured before it is kept), the same way as .devcarry/variant-NAME.tar.xz:
      # run at every core only (their 1-thread path is this build's), in the same rounds.
      [ -f /tmp/shuttle.arrow ] || node bin/dsgkit.js generate --out /tmp/shuttle.arrow --rows 50000 --dim 9 --labeled 1000 --seed 1 >/dev/null
      builds="base this"
      for tarball in .devcarry/base.tar.xz .devcarry/variant-*.tar.xz; do
        [ -f "$tarball" ] || continue
        name=$(basename "$tarball" .tar.xz); name=${name#variant-}
        mkdir -p "/tmp/$name" && tar -xJf "$tarball" -C "/tmp/$name" && ln -sfn "$PWD/node_modules" "/tmp/$name/node_modules"
        [ "$name" = base ] || builds="$builds $name"
      done
      for round in 1 2 3; do
        for build in $builds; do
          cli=bin/dsgkit.js; [ "$build" = this ] || cli=/tmp/$build/bin/dsgkit.js
          counts="1,$(nproc)"; case " base this " in *" $build "*) ;; *) counts=$(nproc) ;; esac
          node "$cli" scaling --data /tmp/shuttle.arrow --learner qsg-s2auc --iterations 400 --threads "$counts" --repeats 2 --no-ceiling --out "$out/ab-$build-$round" 2>&1 | tail -n 4 | sed "s/^/$build $round: /" | tee -a "$out/ab.txt"
        done
      done
      ;;
    workers)
      # How long the pool's workers take to start: a session of k workers on the work board (dist/), the time from
      # the pool's construction to each worker's first act on the board, 3 times each at k = 1 and k = cores − 1.
      for k in 1 $(( $(nproc) - 1 )) 1 $(( $(nproc) - 1 )) 1 $(( $(nproc) - 1 )); do
        node --input-type=module -e "
          import { Piscina } from 'piscina';
          import { PoolSession } from './dist/src/engine/pool-session.js';
          import { workerLocation } from './dist/src/engine/worker-location.js';
          const k = $k, t0 = performance.now();
          const { url, execArgv } = workerLocation('evaluate');
          const p = new Piscina({ filename: url.href, execArgv, minThreads: k, maxThreads: k, concurrentTasksPerWorker: 1 });
          const s = new PoolSession(p, k, false);
          const at = [];
          while (at.length < k) { await new Promise((r) => setTimeout(r, 1)); at.length = 0; for (let i = 1; i <= k; i++) if (s.board.totals(i).thread !== 0) at.push(0); }
          const ms = performance.now() - t0;
          console.log(k + ' workers: every one serving after ' + ms.toFixed(0) + ' ms');
          await s.end(); await p.destroy();" 2>&1 | tee -a "$out/workers.txt"
      done
      ;;
    determinism)
      # Every learner's model bytes: compare with `bash bench/determinism.sh . /tmp/det-x` on another machine.
      bash bench/determinism.sh . /tmp/det-x 2>&1 | tee "$out/determinism.txt"
      ;;
  esac
done
