"""Runs the scikit-learn peers of dsgkit on splits written by bench/peers.ts.

Usage: python3 bench/peers/run_peers.py MANIFEST.json OUT.json

MANIFEST.json (written by bench/peers.ts)::

    {"dataset": "data/spam.arrow", "task": "binary" | "ordinal",
     "unlabeledCap": 4000, "peers": ["svc", ...] (optional: a subset),
     "splits": [{"seed": 1, "train": "/tmp/.../train-1.csv", "test": "/tmp/.../test-1.csv"}, ...]}

Each CSV has a header ``label,f1,...,fd``; features are already min-max scaled
to [0, 1] with the scaler fitted on the training rows (the same map dsgkit
applies), and an empty label cell means the row is unlabeled.

OUT.json gets one record per (peer, seed): the held-out scores and predicted
labels (bench/peers.ts recomputes the metrics from them with dsgkit's own
metric code and checks they agree with the ones computed here), the metric,
accuracy, MAE (ordinal), the chosen hyperparameters and the wall time.

The peers (what a user would otherwise pick, scikit-learn 1.2 / LIBSVM):

- ``svc``: RBF SVC on the labeled rows, C in 2^-5, 2^-3, ..., 2^15 and gamma in
  2^-15, 2^-13, ..., 2^3 by 5-fold stratified CV (GridSearchCV). Binary: CV
  scored by AUC of decision_function; held-out AUC from decision_function,
  accuracy from predict. Ordinal: SVC(probability=True), score = expected
  class sum_k k p_k, CV scored by the mean threshold AUC of that score.
- ``label-spreading-rbf`` / ``label-spreading-knn``: LabelSpreading on labeled +
  unlabeled rows (alpha = 0.2, sklearn's default); gamma in 2^-7, 2^-5, ..., 2^3
  or n_neighbors in 3, 7, 15, 31 picked by transductive 5-fold CV on the
  labeled rows (a fold's labels are hidden, its rows stay in the graph). The
  rbf kernel is a dense n x n matrix: above ``unlabeledCap`` training rows it
  uses all labeled rows plus a seeded sample of the unlabeled ones.
- ``self-training-svc``: SelfTrainingClassifier(SVC(probability=True, C, gamma
  as chosen by ``svc`` on this split)), threshold 0.75, max_iter 10 (sklearn's
  defaults), on labeled + unlabeled rows (capped like the rbf graph). Its time
  excludes the ``svc`` grid search it reuses.
- ``rbf-sampler-sgd``: random Fourier features of the RBF kernel
  (RBFSampler, 500 components, seeded) into a logistic-loss SGDClassifier, on
  the labeled rows only: the linear-time supervised counterpart of dsgkit's
  random-feature learners. gamma in 2^-7, 2^-5, ..., 2^3 and alpha in 1e-5,
  1e-4, 1e-3, 1e-2 by the same 5-fold CV as ``svc``. Binary: AUC from
  decision_function; ordinal: expected class from predict_proba.
- ``kernel-ridge`` (on request only, not among the defaults): RBF kernel ridge
  regression of the label (the class number on ordinal sets, one score
  ranked at every cut; +1/-1 on binary ones) on the labeled rows, gamma in
  2^-15, ..., 2^3 and alpha in 10^-7, 10^-5, ..., 10 by the same 5-fold CV
  (scored as ``svc`` is). What one score fitted with almost no
  regularisation reaches: bench/ordinal-gap.ts.

All peers run on one thread (LIBSVM is single-threaded; GridSearchCV n_jobs=1).
"""
import json
import sys
import time
import warnings

try:
    import numpy as np
    import scipy
    import sklearn
except ImportError as e:
    sys.exit(f"run_peers.py: {e.name} is missing from {sys.executable}: install Debian's python3-sklearn (apt-get install python3-sklearn), or pass --python a Python that has scikit-learn")
from sklearn.kernel_approximation import RBFSampler
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.semi_supervised import LabelSpreading, SelfTrainingClassifier
from sklearn.svm import SVC

from ordinal_auc import binary_auc, ordinal_mean_auc

C_GRID = [2.0**e for e in range(-5, 16, 2)]
GAMMA_GRID = [2.0**e for e in range(-15, 4, 2)]
LS_GAMMA_GRID = [2.0**e for e in range(-7, 4, 2)]
LS_NEIGHBORS_GRID = [3, 7, 15, 31]
FOLDS = 5
SGD_ALPHA_GRID = [1e-5, 1e-4, 1e-3, 1e-2]
RFF_COMPONENTS = 500
ALL_PEERS = ["svc", "label-spreading-rbf", "label-spreading-knn", "self-training-svc", "rbf-sampler-sgd"]
# Peers run only when a manifest names them.
EXTRA_PEERS = ["kernel-ridge"]
RIDGE_ALPHA_GRID = [10.0**e for e in range(-7, 2, 2)]
# What binary CV maximises: "auc" (default) or "accuracy" (manifest key "cvScoring";
# bench/gkm.ts compares held-out accuracy, so its peers are tuned for accuracy).
CV_SCORING = "auc"


def log(msg):
    print(f"[peers] {msg}", file=sys.stderr, flush=True)


def read_split(path):
    """Features and labels of a CSV written by bench/peers.ts (NaN label = unlabeled)."""
    data = np.genfromtxt(path, delimiter=",", skip_header=1, ndmin=2)
    return data[:, 1:], data[:, 0]


def metric(task, y, score):
    """Held-out AUC (binary, positive = larger label) or mean threshold AUC (ordinal)."""
    if task == "binary":
        return binary_auc(y == np.max(y), score)
    return ordinal_mean_auc(y, score)


class Split:
    """One seed's rows: labeled / unlabeled training rows and the test rows."""

    def __init__(self, spec, task, cap):
        self.seed = int(spec["seed"])
        X, y = read_split(spec["train"])
        self.Xt, self.yt = read_split(spec["test"])
        lab = ~np.isnan(y)
        self.XL, self.yL = X[lab], y[lab]
        self.XU = X[~lab]
        self.classes = np.unique(self.yL)
        if task == "binary" and self.classes.size != 2:
            raise ValueError(f"binary task but labels {self.classes}")
        self.cv = StratifiedKFold(FOLDS, shuffle=True, random_state=self.seed)
        # Capped unlabeled pool for the O(n^2)-memory / O(n^2+) peers.
        room = max(0, cap - self.XL.shape[0])
        if self.XU.shape[0] > room:
            pick = np.random.default_rng(self.seed).choice(self.XU.shape[0], room, replace=False)
            self.XUcap = self.XU[np.sort(pick)]
        else:
            self.XUcap = self.XU

    def transductive(self, XU):
        """Rows and sklearn-coded labels (class index, -1 = unlabeled) for the semi-supervised peers."""
        X = np.vstack([self.XL, XU])
        idx = np.searchsorted(self.classes, self.yL)
        y = np.concatenate([idx, -np.ones(XU.shape[0], dtype=int)])
        return X, y


def score_from_proba(task, classes, proba):
    """Binary: P(positive). Ordinal: expected class sum_k k p_k."""
    if task == "binary":
        return proba[:, 1]
    return proba @ classes


def run_svc(task, s):
    if task == "binary":
        est = SVC(kernel="rbf")
        scoring = "accuracy" if CV_SCORING == "accuracy" else "roc_auc"
    else:
        est = SVC(kernel="rbf", probability=True, random_state=s.seed)

        def scoring(e, X, y):
            return ordinal_mean_auc(y, e.predict_proba(X) @ e.classes_)

    grid = GridSearchCV(est, {"C": C_GRID, "gamma": GAMMA_GRID}, scoring=scoring, cv=s.cv, n_jobs=1, error_score=np.nan)
    grid.fit(s.XL, s.yL)
    best = grid.best_estimator_
    if task == "binary":
        score = best.decision_function(s.Xt)
    else:
        score = best.predict_proba(s.Xt) @ best.classes_
    return score, best.predict(s.Xt), {"C": grid.best_params_["C"], "gamma": grid.best_params_["gamma"], "cvScore": grid.best_score_}


def label_spreading_cv(task, s, XU, make):
    """Picks the LabelSpreading parameter by transductive CV; returns (fitted model, param, cv score)."""
    X, y = s.transductive(XU)
    nL = s.XL.shape[0]
    best = (-np.inf, None)
    for param in make.grid:
        scores = []
        for train_idx, val_idx in s.cv.split(s.XL, s.yL):
            yf = y.copy()
            yf[val_idx] = -1
            model = make(param).fit(X, yf)
            dist = model.label_distributions_[val_idx]
            sc = score_from_proba(task, s.classes, dist)
            ok = np.all(np.isfinite(sc))
            if task == "binary" and CV_SCORING == "accuracy":
                scores.append(float(np.mean(s.classes[np.argmax(dist, axis=1)] == s.yL[val_idx])) if ok else np.nan)
            else:
                scores.append(metric(task, s.yL[val_idx], sc) if ok else np.nan)
        mean = float(np.mean(scores))
        if np.isfinite(mean) and mean > best[0]:
            best = (mean, param)
    if best[1] is None:
        raise RuntimeError("LabelSpreading: no parameter gave finite scores")
    model = make(best[1]).fit(X, y)
    assert nL == np.sum(y >= 0)
    return model, best[1], best[0]


def run_label_spreading(task, s, kernel):
    if kernel == "rbf":
        def make(g):
            return LabelSpreading(kernel="rbf", gamma=g, alpha=0.2, max_iter=30)
        make.grid = LS_GAMMA_GRID
        XU, name = s.XUcap, "gamma"
    else:
        def make(k):
            return LabelSpreading(kernel="knn", n_neighbors=k, alpha=0.2, max_iter=30)
        make.grid = LS_NEIGHBORS_GRID
        XU, name = s.XU, "n_neighbors"
    model, param, cv = label_spreading_cv(task, s, XU, make)
    proba = model.predict_proba(s.Xt)
    score = score_from_proba(task, s.classes, proba)
    if not np.all(np.isfinite(score)):
        # A test row with no kernel weight to any training row gets NaN: rank it in the middle.
        score = np.where(np.isfinite(score), score, np.nanmean(score))
    pred = s.classes[model.predict(s.Xt)]
    return score, pred, {name: param, "cvScore": cv, "unlabeledUsed": int(XU.shape[0])}


def run_self_training(task, s, svc_params):
    X, y = s.transductive(s.XUcap)
    base = SVC(kernel="rbf", C=svc_params["C"], gamma=svc_params["gamma"], probability=True, random_state=s.seed)
    model = SelfTrainingClassifier(base, threshold=0.75, max_iter=10).fit(X, y)
    if task == "binary":
        score = model.decision_function(s.Xt)
    else:
        score = model.predict_proba(s.Xt) @ s.classes
    pred = s.classes[model.predict(s.Xt)]
    added = int(np.sum(model.labeled_iter_ > 0))
    return score, pred, {"C": svc_params["C"], "gamma": svc_params["gamma"], "pseudoLabeled": added, "unlabeledUsed": int(s.XUcap.shape[0]), "stop": model.termination_condition_}


def run_rbf_sampler_sgd(task, s):
    est = Pipeline([
        ("rff", RBFSampler(n_components=RFF_COMPONENTS, random_state=s.seed)),
        ("sgd", SGDClassifier(loss="log_loss", max_iter=1000, tol=1e-4, random_state=s.seed)),
    ])
    if task == "binary":
        scoring = "accuracy" if CV_SCORING == "accuracy" else "roc_auc"
    else:
        def scoring(e, X, y):
            return ordinal_mean_auc(y, e.predict_proba(X) @ e.classes_)
    grid = GridSearchCV(est, {"rff__gamma": LS_GAMMA_GRID, "sgd__alpha": SGD_ALPHA_GRID}, scoring=scoring, cv=s.cv, n_jobs=1, error_score=np.nan)
    grid.fit(s.XL, s.yL)
    best = grid.best_estimator_
    score = best.decision_function(s.Xt) if task == "binary" else best.predict_proba(s.Xt) @ best.classes_
    return score, best.predict(s.Xt), {"gamma": grid.best_params_["rff__gamma"], "alpha": grid.best_params_["sgd__alpha"], "cvScore": grid.best_score_}


def run_kernel_ridge(task, s):
    if task == "binary":
        y = np.where(s.yL == np.max(s.yL), 1.0, -1.0)

        def scoring(e, X, yy):
            score = e.predict(X)
            return binary_auc(yy > 0, score) if CV_SCORING == "auc" else float(np.mean(np.where(score > 0, 1.0, -1.0) == yy))
    else:
        y = s.yL

        def scoring(e, X, yy):
            return ordinal_mean_auc(yy, e.predict(X))
    folds = list(s.cv.split(s.XL, s.yL))
    grid = GridSearchCV(KernelRidge(kernel="rbf"), {"gamma": GAMMA_GRID, "alpha": RIDGE_ALPHA_GRID}, scoring=scoring, cv=folds, n_jobs=1, error_score=np.nan)
    grid.fit(s.XL, y)
    score = grid.best_estimator_.predict(s.Xt)
    if task == "binary":
        pred = np.where(score > 0, np.max(s.yL), np.min(s.yL))
    else:
        pred = s.classes[np.clip(np.searchsorted((s.classes[1:] + s.classes[:-1]) / 2, score), 0, s.classes.size - 1)]
    return score, pred, {"gamma": grid.best_params_["gamma"], "alpha": grid.best_params_["alpha"], "cvScore": grid.best_score_}


def main():
    manifest_path, out_path = sys.argv[1], sys.argv[2]
    with open(manifest_path) as f:
        manifest = json.load(f)
    task = manifest["task"]
    global CV_SCORING
    CV_SCORING = manifest.get("cvScoring", "auc")
    if CV_SCORING not in ("auc", "accuracy"):
        raise SystemExit(f"cvScoring must be auc or accuracy, got {CV_SCORING}")
    cap = int(manifest.get("unlabeledCap", 4000))
    peers = manifest.get("peers") or ALL_PEERS
    unknown = [p for p in peers if p not in ALL_PEERS + EXTRA_PEERS]
    if unknown:
        raise SystemExit(f"unknown peers {unknown}; known: {ALL_PEERS + EXTRA_PEERS}")
    records = []
    for spec in manifest["splits"]:
        s = Split(spec, task, cap)
        svc_params = None
        for peer in ALL_PEERS + EXTRA_PEERS:
            if peer not in peers and not (peer == "svc" and "self-training-svc" in peers):
                continue
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # convergence / divide warnings of bad grid points
                if peer == "svc":
                    score, pred, params = run_svc(task, s)
                    svc_params = params
                elif peer == "label-spreading-rbf":
                    score, pred, params = run_label_spreading(task, s, "rbf")
                elif peer == "label-spreading-knn":
                    score, pred, params = run_label_spreading(task, s, "knn")
                elif peer == "rbf-sampler-sgd":
                    score, pred, params = run_rbf_sampler_sgd(task, s)
                elif peer == "kernel-ridge":
                    score, pred, params = run_kernel_ridge(task, s)
                else:
                    score, pred, params = run_self_training(task, s, svc_params)
            seconds = time.perf_counter() - t0
            if peer not in peers:
                continue
            rec = {
                "method": peer,
                "seed": s.seed,
                "seconds": seconds,
                "metric": metric(task, s.yt, score),
                "accuracy": float(np.mean(pred == s.yt)),
                "params": params,
                "scores": [float(v) for v in score],
                "predicted": [float(v) for v in pred],
            }
            if task == "ordinal":
                rec["mae"] = float(np.mean(np.abs(pred - s.yt)))
            records.append(rec)
            log(f"{manifest['dataset']} seed {s.seed} {peer}: metric {rec['metric']:.4f}, accuracy {rec['accuracy']:.4f}, {seconds:.1f} s {params}")
    versions = {"python": sys.version.split()[0], "sklearn": sklearn.__version__, "numpy": np.__version__, "scipy": scipy.__version__}
    with open(out_path, "w") as f:
        json.dump({"versions": versions, "records": records}, f)


if __name__ == "__main__":
    main()
