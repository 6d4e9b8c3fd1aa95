"""The ordinal metric of src/metrics/ordinal.ts, in Python, for the peers.

``ordinal_mean_auc(y, scores)`` is the mean, over the k - 1 threshold
subproblems j = 1..k-1 (negatives: labels <= j, positives: labels > j), of the
binary AUC of the same scores, ties counting one half; subproblems without
positives or negatives are skipped. bench/peers.ts recomputes every peer's
metric with the TypeScript implementation from the scores this module was
given and fails when the two disagree, so the two stay the same metric.

Example::

    >>> ordinal_mean_auc([1, 1, 2, 3], [0.1, 0.5, 0.5, 0.9])
    0.9375
"""
import numpy as np
from scipy.stats import rankdata


def binary_auc(positive, scores):
    """AUC of ``scores`` for the boolean mask ``positive`` (Mann-Whitney U / (n+ n-), ties 1/2).

    Example::

        >>> binary_auc(np.array([True, True, False, False]), np.array([0.9, 0.4, 0.4, 0.1]))
        0.875
    """
    positive = np.asarray(positive, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(scores)  # average ranks over ties
    u = ranks[positive].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def ordinal_mean_auc(y, scores):
    """Mean threshold AUC of ``scores`` for ordinal labels 1..k (NaN labels ignored).

    Example::

        >>> ordinal_mean_auc([1, 1, 2, 3], [0.1, 0.5, 0.5, 0.9])
        0.9375
    """
    y = np.asarray(y, dtype=float)
    scores = np.asarray(scores, dtype=float)
    keep = ~np.isnan(y)
    y, scores = y[keep], scores[keep]
    k = int(y.max())
    aucs = []
    for j in range(1, k):
        a = binary_auc(y > j, scores)
        if not np.isnan(a):
            aucs.append(a)
    if not aucs:
        raise ValueError("ordinal_mean_auc: fewer than two classes present")
    return float(np.mean(aucs))


if __name__ == "__main__":
    import doctest

    doctest.testmod(verbose=False)
