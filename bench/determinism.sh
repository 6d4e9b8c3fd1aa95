#!/usr/bin/env bash
# The model bytes of every learner and of every path through train and tune
# (1 and 2 threads, validation trace, history and rows evaluation, Laplacian
# kernel, continuation, checkpoints, sample on read, tune's CV table and refit),
# on seeded splits of the bundled data: prints "file sha256" per output.
# Two checkouts give the same list exactly when a change kept every model byte:
#
#   bash bench/determinism.sh /path/to/old-checkout /tmp/det > old.txt
#   bash bench/determinism.sh . /tmp/det > new.txt && diff old.txt new.txt
#
# Use the same output folder for both: model headers record the training file's path.
set -euo pipefail
repo="${1:-/work/main}"; out="${2:-/tmp/det-out}"
rm -rf "$out"; mkdir -p "$out"; cd "$repo"
D="node bin/dsgkit.js"
$D split data/spam.arrow --labeled 200 --test 0.2 --seed 1 --out-train $out/spam-train.arrow --out-test $out/spam-test.arrow >/dev/null
$D split data/diabetes.arrow --labeled 100 --test 0.2 --seed 1 --out-train $out/dia-train.arrow --out-test $out/dia-test.arrow >/dev/null
$D split data/breast_cancer.arrow --labeled 100 --test 0.2 --seed 1 --out-train $out/bc-train.arrow --out-test $out/bc-test.arrow >/dev/null
for l in qsg-s2auc dsg tsgs3vm frs3vm gkm lapsvm; do
  for th in 1 2; do $D train --learner $l --data $out/spam-train.arrow --out $out/$l-$th.dsg --threads $th >/dev/null 2>&1; done
done
$D train --learner exact-s2auc --data $out/bc-train.arrow --out $out/exact-s2auc-1.dsg --threads 1 >/dev/null 2>&1
for l in qs3orao sorao; do for th in 1 2; do $D train --learner $l --data $out/dia-train.arrow --out $out/$l-$th.dsg --threads $th >/dev/null 2>&1; done; done
# validation trace, evaluation rows/history, laplacian, theta
$D train --learner qsg-s2auc --data $out/spam-train.arrow --validation $out/spam-test.arrow --out $out/qsg-val.dsg --threads 2 >/dev/null 2>&1
$D train --learner qsg-s2auc --data $out/spam-train.arrow --evaluation history --iterations 150 --out $out/qsg-hist.dsg >/dev/null 2>&1
$D train --learner tsgs3vm --data $out/spam-train.arrow --kernel laplacian --iterations 150 --out $out/tsg-lap.dsg >/dev/null 2>&1
$D train --learner gkm --data $out/bc-train.arrow --loss logistic --smoothness-p 2 --validation $out/bc-test.arrow --out $out/gkm-val.dsg >/dev/null 2>&1
$D train --learner frs3vm --data $out/bc-train.arrow --validation $out/bc-test.arrow --out $out/frs-val.dsg >/dev/null 2>&1
# continuation and checkpoints, sample on read
$D train --learner qsg-s2auc --data $out/spam-train.arrow --iterations 100 --out $out/qsg-100.dsg >/dev/null 2>&1
$D train --init $out/qsg-100.dsg --data $out/spam-train.arrow --iterations 250 --out $out/qsg-cont.dsg >/dev/null 2>&1
$D train --learner qsg-s2auc --data $out/spam-train.arrow --iterations 250 --out $out/qsg-250.dsg --checkpoint-every 100 --checkpoint $out/qsg-ckpt.dsg >/dev/null 2>&1
$D train --learner qs3orao --data $out/dia-train.arrow --iterations 200 --sample-on-read --out $out/qs3-sor.dsg >/dev/null 2>&1
# tune (CV table + refit)
$D tune --learner qsg-s2auc --data $out/spam-train.arrow --out $out/tune-qsg.dsg --iterations 100 --folds 3 > $out/tune-qsg.txt 2>/dev/null || true
$D tune --learner gkm --data $out/bc-train.arrow --out $out/tune-gkm.dsg --folds 3 > $out/tune-gkm.txt 2>/dev/null || true
$D tune --learner qs3orao --data $out/dia-train.arrow --out $out/tune-qs3.dsg --iterations 100 --folds 3 > $out/tune-qs3.txt 2>/dev/null || true
$D tune --learner frs3vm --data $out/bc-train.arrow --out $out/tune-frs.dsg --folds 3 > $out/tune-frs.txt 2>/dev/null || true
cd $out; for f in *.txt; do grep -v "wall time" $f > $f.stable; done; sha256sum *.dsg *.stable | awk '{print $2, $1}'
