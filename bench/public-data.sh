#!/usr/bin/env bash
# Builds the public benchmark datasets the project does NOT ship, from Debian
# packages, into bench/data-public/*.arrow (git-ignored). Provenance, licences
# and label codings: bench/README.md § Public datasets.
#
#   bash bench/public-data.sh          # installs the Debian packages when missing (needs root)
#
# Binary: ionosphere, pima, musk, cells, letter (A–M vs N–Z).
# Ordinal: ames (Sale_Price), boston (medv), each binned into 5 equal-frequency classes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
out="$here/data-public"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- Debian packages (R 4.2 base + three data packages; python3 for binning) ---
need=()
command -v Rscript >/dev/null || need+=(r-base-core)
for p in mlbench modeldata kernlab; do
  [ -d "/usr/lib/R/site-library/$p" ] || need+=("r-cran-$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}"
fi

# --- R data frames -> CSV (label first, then numeric features; factors as numbers) ---
Rscript --vanilla - "$tmp" <<'R'
dir <- commandArgs(TRUE)[1]
num <- function(df) as.data.frame(lapply(df, function(v) if (is.factor(v)) as.numeric(as.character(v)) else as.numeric(v)))
put <- function(label, features, name) {
  out <- data.frame(label = label, num(features))
  stopifnot(!anyNA(out))
  write.csv(out, file.path(dir, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
  cat(sprintf("%s: %d rows x %d features\n", name, nrow(out), ncol(out) - 1), file = stderr())
}
suppressPackageStartupMessages({ library(mlbench); library(modeldata) })

data(Ionosphere)            # mlbench; V1, V2 are 0/1 factors; Class good/bad
put(ifelse(Ionosphere$Class == "good", 1, -1), Ionosphere[, names(Ionosphere) != "Class"], "ionosphere")

data(PimaIndiansDiabetes)   # mlbench; diabetes pos/neg
put(ifelse(PimaIndiansDiabetes$diabetes == "pos", 1, -1), PimaIndiansDiabetes[, names(PimaIndiansDiabetes) != "diabetes"], "pima")

data(musk, package = "kernlab")   # kernlab; Class 1 = musk, 0 = non-musk
put(ifelse(musk$Class == "1", 1, -1), musk[, names(musk) != "Class"], "musk")

data(cells)                 # modeldata; class PS (poorly segmented) / WS; drop the "case" column
put(ifelse(cells$class == "PS", 1, -1), cells[, !(names(cells) %in% c("case", "class"))], "cells")

data(LetterRecognition)     # mlbench; letters A-M = +1, N-Z = -1 (the usual binary "letter" task)
put(ifelse(as.character(LetterRecognition$lettr) <= "M", 1, -1), LetterRecognition[, names(LetterRecognition) != "lettr"], "letter")

data(ames)                  # modeldata; the 33 numeric columns, target Sale_Price (binned below)
keep <- sapply(ames, is.numeric) & names(ames) != "Sale_Price"
put(ames$Sale_Price, ames[, keep], "ames-raw")

data(BostonHousing)         # mlbench; chas is a 0/1 factor; target medv (binned below)
put(BostonHousing$medv, BostonHousing[, names(BostonHousing) != "medv"], "boston-raw")
R

# --- equal-frequency binning of a real target into 5 ordered classes 1..5 ---
# Cut points are the 20/40/60/80% quantiles (linear interpolation, numpy's
# default); label = 1 + #{cuts c : target > c}. Ties at a cut make the classes
# only roughly equal. (To be replaced by `dsgkit bin` once it exists.)
bin5() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import csv, sys
with open(sys.argv[1]) as f:
    rows = list(csv.reader(f))
head, body = rows[0], rows[1:]
t = sorted(float(r[0]) for r in body)
def pct(p):
    h = (len(t) - 1) * p
    lo = int(h); hi = min(lo + 1, len(t) - 1)
    return t[lo] + (h - lo) * (t[hi] - t[lo])
cuts = [pct(p) for p in (0.2, 0.4, 0.6, 0.8)]
labels = [1 + sum(float(r[0]) > c for c in cuts) for r in body]
print(f"{sys.argv[2]}: cuts {cuts}, class sizes {[labels.count(k) for k in range(1, 6)]}", file=sys.stderr)
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(head)
    for r, k in zip(body, labels):
        w.writerow([k] + r[1:])
PY
}
bin5 "$tmp/ames-raw.csv" "$tmp/ames.csv"
bin5 "$tmp/boston-raw.csv" "$tmp/boston.csv"

# --- CSV -> Arrow with dsgkit convert (checks every value) ---
mkdir -p "$out"
cd "$repo"
for name in ionosphere pima musk cells letter ames boston; do
  npx --no-install tsx src/cli/main.ts convert "$tmp/$name.csv" --out "$out/$name.arrow"
done
ls -l "$out"
