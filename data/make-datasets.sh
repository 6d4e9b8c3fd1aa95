#!/usr/bin/env bash
# Rebuilds the bundled datasets in data/ from the Debian packages they come
# from (see data/README.md). Needs: Rscript with r-cran-kernlab, /usr/bin/python3
# with python3-sklearn (only its bundled CSV files are read), and this repo's
# node_modules. CI never runs it; the .arrow files are committed.
#
#   bash data/make-datasets.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
SKDATA=/usr/lib/python3/dist-packages/sklearn/datasets/data

# (a) spam — kernlab's copy of the UCI Spambase data: spam = +1, nonspam = -1.
Rscript --vanilla -e '
  data(spam, package = "kernlab")
  label <- ifelse(spam$type == "spam", 1, -1)
  out <- data.frame(label = label, spam[, names(spam) != "type"])
  write.csv(out, commandArgs(TRUE)[1], row.names = FALSE, quote = FALSE)
' "$tmp/spam.csv"

# (b) breast cancer (Wisconsin diagnostic) — sklearn's bundled CSV.
# Its header line is "569,30,malignant,benign"; the last column is the target,
# 0 = malignant, 1 = benign. We write malignant = +1, benign = -1.
/usr/bin/python3 - "$SKDATA/breast_cancer.csv" "$tmp/breast_cancer.csv" <<'PY'
import csv, sys
names = ["mean radius", "mean texture", "mean perimeter", "mean area", "mean smoothness",
         "mean compactness", "mean concavity", "mean concave points", "mean symmetry",
         "mean fractal dimension", "radius error", "texture error", "perimeter error",
         "area error", "smoothness error", "compactness error", "concavity error",
         "concave points error", "symmetry error", "fractal dimension error", "worst radius",
         "worst texture", "worst perimeter", "worst area", "worst smoothness",
         "worst compactness", "worst concavity", "worst concave points", "worst symmetry",
         "worst fractal dimension"]
with open(sys.argv[1]) as f:
    rows = list(csv.reader(f))
n, d = int(rows[0][0]), int(rows[0][1])
assert d == len(names) and len(rows) == n + 1, (n, d, len(rows))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["label"] + [s.replace(" ", "_") for s in names])
    for r in rows[1:]:
        target = int(r[d])
        w.writerow([1 if target == 0 else -1] + r[:d])
PY

# (c) diabetes — sklearn's bundled raw (unscaled) data, 442 x 10; the real
# target (disease progression after one year) binned into 5 ordered classes by
# its quintiles: class = 1 + #{q in (q20, q40, q60, q80) : target > q}, with
# q_p the linear-interpolation percentile (numpy's default method).
/usr/bin/python3 - "$SKDATA/diabetes_data_raw.csv.gz" "$SKDATA/diabetes_target.csv.gz" "$tmp/diabetes.csv" <<'PY'
import csv, gzip, sys
with gzip.open(sys.argv[1], "rt") as f:
    X = [line.split() for line in f if line.strip()]
with gzip.open(sys.argv[2], "rt") as f:
    t = [float(line) for line in f if line.strip()]
assert len(X) == len(t) == 442 and all(len(r) == 10 for r in X)
s = sorted(t)
def pct(p):  # numpy.percentile, method "linear"
    h = (len(s) - 1) * p
    lo = int(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])
cuts = [pct(p) for p in (0.2, 0.4, 0.6, 0.8)]
print("diabetes quintile cuts:", cuts, file=sys.stderr)
with open(sys.argv[3], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["label", "age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"])
    for r, y in zip(X, t):
        w.writerow([1 + sum(y > c for c in cuts)] + r)
PY

cd "$repo"
for name in spam breast_cancer diabetes; do
  npx --no-install tsx src/cli/main.ts convert "$tmp/$name.csv" --out "data/$name.arrow"
done
# (d) a semi-supervised pair for the examples: breast cancer with 100 labeled
# training rows (the other 355 unlabeled) and 20% of the rows held out, labeled.
npx --no-install tsx src/cli/main.ts split data/breast_cancer.arrow --labeled 100 --test 0.2 --seed 1 \
  --out-train data/breast_cancer-train.arrow --out-test data/breast_cancer-test.arrow
