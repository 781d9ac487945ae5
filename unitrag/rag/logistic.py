"""Platt scaling and its several-feature form: the answerability gate's fits (``rag.gate``).

Newton's method on a few hundred labelled questions converges in a handful of steps, so the
fit needs nothing beyond numpy; Platt's smoothed targets keep it finite on the perfectly
separated classes a small labelled set often has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np



def sigmoid(z: Any) -> Any:
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=np.float64)))


def fit_logistic(columns: np.ndarray, labels: Sequence[bool], iterations: int = 100) -> tuple[np.ndarray, float]:
    """Weights and bias of p = sigmoid(x·w + b) over the columns of ``columns`` (n × d), Platt's targets.

    :func:`fit_platt` with several features: a constant column (a mix feature every question
    shares) gets weight 0 rather than an error.
    """
    X = np.asarray(columns, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    sd = X.std(axis=0)
    live = sd > 0
    a0, b = fit_platt(X[:, 0], labels, iterations) if live.sum() == 1 and live[0] else (0.0, 0.0)
    if live.sum() <= 1:
        return np.array([a0] + [0.0] * (X.shape[1] - 1)), b
    y = np.asarray(labels, dtype=bool)
    n_pos, n_neg = int(y.sum()), int(y.size - y.sum())
    mu = X.mean(axis=0)
    Z = np.column_stack([(X[:, live] - mu[live]) / sd[live], np.ones(len(X))])
    t = np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    ridge = 1e-6 * np.eye(Z.shape[1])
    w = np.zeros(Z.shape[1])
    for _ in range(iterations):
        p = sigmoid(Z @ w)
        step = np.linalg.solve(Z.T @ (Z * (p * (1.0 - p))[:, None]) + ridge, Z.T @ (p - t) + ridge @ w)
        w = w - step
        if np.abs(step).max() < 1e-10:
            break
    weights = np.zeros(X.shape[1])
    weights[live] = w[:-1] / sd[live]
    return weights, float(w[-1] - (weights[live] * mu[live]).sum())


def fit_platt(features: Sequence[float], labels: Sequence[bool], iterations: int = 100) -> tuple[float, float]:
    """(a, b) of p = sigmoid(a·x + b), by Newton's method on the cross-entropy.

    Platt's targets ((n+ + 1)/(n+ + 2) and 1/(n- + 2) instead of 1 and 0) keep the
    slope finite when the two classes are perfectly separated, as they often are on a
    small labelled set. The feature is standardised for the iterations only.
    """
    x = np.asarray(features, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError("features and labels must be two sequences of the same length")
    n_pos = int(y.sum())
    n_neg = int(y.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        raise ValueError("Platt scaling needs both answerable and unanswerable examples")
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite numbers")
    mu, sd = float(x.mean()), float(x.std())
    if sd == 0.0:
        raise ValueError("the feature has the same value for every example: it cannot separate anything")
    X = np.column_stack([(x - mu) / sd, np.ones_like(x)])
    t = np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    ridge = 1e-9 * np.eye(2)

    def loss(w: np.ndarray) -> float:
        z = X @ w  # log(1 + e^z) - t·z, computed without overflow
        return float(np.sum(np.logaddexp(0.0, z) - t * z))

    w = np.zeros(2)
    current = loss(w)
    for _ in range(iterations):
        p = sigmoid(X @ w)
        grad = X.T @ (p - t)
        hess = X.T @ (X * (p * (1.0 - p))[:, None]) + ridge
        step = np.linalg.solve(hess, grad)
        scale = 1.0
        while scale > 1e-6 and loss(w - scale * step) > current:
            scale /= 2.0  # backtracking keeps every step downhill
        w = w - scale * step
        previous, current = current, loss(w)
        if abs(previous - current) < 1e-12 * max(1.0, abs(current)) or np.abs(scale * step).max() < 1e-12:
            break
    a = w[0] / sd
    return float(a), float(w[1] - a * mu)
