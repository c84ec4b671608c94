"""The Universal Scalability Law (Gunther): throughput against load, and its fit to measured steps.

    X(N) = λN / (1 + σ(N − 1) + κN(N − 1))

λ is the throughput one unit of load (one bot) gets alone, σ the share of the work that is
serialized (contention: queueing for one thing), κ the cost of keeping N parties coherent with
each other (crosstalk, every pair). With κ > 0 the throughput peaks at N* = sqrt((1 − σ)/κ) and
falls beyond it; with κ = 0 it only flattens towards λ/σ. The fit is scipy's bounded least squares
(``curve_fit``, trust region) on the throughput itself, started from the law's exact linearisation
(N/X is a quadratic in N), with λ > 0, 0 <= σ <= 1 (a serialized share above all of the work has
no meaning) and κ >= 0.

Degenerate sweeps raise :class:`USLFitError` instead of returning numbers that mean nothing: fewer
than three distinct loads (three parameters), or a throughput that is flat across the loads (every
step past saturation, or limited by something other than the load: λ and σ cannot be told apart).

A fit says how good it is in two ways. Each parameter has a confidence interval (value ± Student's
t for the residuals' degrees of freedom times its standard error, within its bounds): σ or κ whose
interval reaches 0 cannot be told from 0. And :func:`holdout` fits the law to every point but one
and predicts the one left out: R² of a three-parameter curve through four or five points says
little, while a law that cannot predict a step it was not shown has not captured the sweep.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from scipy.optimize import OptimizeWarning, curve_fit
from scipy.stats import t as student_t

__all__ = ["CONFIDENCE", "FLAT_SPREAD", "MIN_POINTS", "Holdout", "USLFit", "USLFitError", "fit_usl", "holdout", "usl"]

MIN_POINTS: Final = 3
"""Distinct loads a fit needs: one per parameter."""
CONFIDENCE: Final = 0.95
"""The confidence of the parameters' intervals."""
_BOUNDS: Final = ((0.0, 0.0, 0.0), (math.inf, 1.0, math.inf))
"""The lower and the upper bounds of λ, σ, κ: the fit's, and so the intervals'."""
FLAT_SPREAD: Final = 0.02
"""Throughputs whose range is within this share of the largest are flat (see the module docstring)."""


class USLFitError(ValueError):
    """The points cannot be fitted meaningfully; the message says why and what to measure instead."""


def usl(n: Any, lam: float, sigma: float, kappa: float) -> Any:
    """X(N) for a load (or an array of loads) ``n``."""
    return lam * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))


@dataclass(frozen=True, slots=True)
class USLFit:
    """λ, σ, κ fitted to (load, throughput) points, with their standard errors.

    The standard errors are None when the points cannot give them: three points leave the
    residuals no degree of freedom.
    """

    lam: float
    sigma: float
    kappa: float
    lam_stderr: float | None
    sigma_stderr: float | None
    kappa_stderr: float | None
    r_squared: float
    points: int

    def throughput(self, n: float) -> float:
        """The fitted X(n)."""
        return float(usl(n, self.lam, self.sigma, self.kappa))

    @property
    def peak_load(self) -> float | None:
        """N* = sqrt((1 − σ)/κ), where the fitted throughput is highest; None without a peak
        (κ = 0: it only flattens; σ = 1: it is flat from the start)."""
        if self.kappa <= 0.0 or self.sigma >= 1.0:
            return None
        return math.sqrt((1.0 - self.sigma) / self.kappa)

    @property
    def peak_throughput(self) -> float | None:
        """X(N*), the most the fitted system carries; None without a peak."""
        peak = self.peak_load
        return None if peak is None else self.throughput(peak)

    def intervals(self) -> tuple[tuple[float, float] | None, ...]:
        """λ, σ, κ's :data:`CONFIDENCE` intervals (see the module docstring); None for a parameter
        without a standard error."""
        values = (self.lam, self.sigma, self.kappa)
        errors = (self.lam_stderr, self.sigma_stderr, self.kappa_stderr)
        spread = float(student_t.ppf(0.5 + CONFIDENCE / 2, self.points - 3)) if self.points > 3 else math.nan
        return tuple(
            None if error is None or not math.isfinite(spread)
            else (max(low, value - spread * error), min(high, value + spread * error))
            for value, error, low, high in zip(values, errors, *_BOUNDS, strict=True)
        )


def _initial_guess(n: np.ndarray, x: np.ndarray) -> tuple[float, float, float]:
    """λ, σ, κ from the linearisation N/X = ((1 − σ) + (σ − κ)N + κN²)/λ, clipped into bounds.

    A least-squares quadratic through (N, N/X) gives c0 + c1·N + c2·N²: λ = 1/(c0 + c1 + c2) (at
    N = 1), κ = c2·λ, σ = c1·λ + κ. Noise can push these outside the bounds, hence the clipping;
    the nonlinear fit then starts near the answer instead of at an arbitrary point.
    """
    c2, c1, c0 = np.polyfit(n, n / x, 2)
    total = c0 + c1 + c2
    lam = 1.0 / total if total > 0 else float(np.max(x / n))
    kappa = max(float(c2 * lam), 0.0)
    sigma = min(max(float(c1 * lam + kappa), 0.0), 1.0)
    return float(lam), sigma, kappa


def fit_usl(load: Sequence[float], throughput: Sequence[float]) -> USLFit:
    """Fit the law to measured points (load N > 0, throughput X >= 0, in any order).

    Raises USLFitError for a degenerate sweep (see the module docstring) and ValueError for
    points that are not numbers of the right sign.
    """
    if len(load) != len(throughput):
        raise ValueError(f"{len(load)} loads but {len(throughput)} throughputs")
    n = np.asarray(load, dtype=float)
    x = np.asarray(throughput, dtype=float)
    if not (np.all(np.isfinite(n)) and np.all(n > 0)):
        raise ValueError(f"loads must be positive numbers, got {list(load)}")
    if not (np.all(np.isfinite(x)) and np.all(x >= 0)):
        raise ValueError(f"throughputs must be numbers >= 0, got {list(throughput)}")
    distinct = len(set(n.tolist()))
    if distinct < MIN_POINTS:
        raise USLFitError(
            f"the USL has three parameters: it needs at least {MIN_POINTS} distinct loads, got {distinct}"
        )
    top = float(np.max(x))
    if top <= 0 or (top - float(np.min(x))) <= FLAT_SPREAD * top:
        raise USLFitError(
            f"throughput is flat across loads {n.min():g} to {n.max():g} (within {FLAT_SPREAD:.0%}): every"
            " step is past saturation, or something other than the load limits it; sweep lower loads"
        )
    start = _initial_guess(n, np.maximum(x, top * 1e-9))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)  # no covariance: reported as None below
        try:
            params, covariance = curve_fit(
                usl, n, x, p0=start, bounds=_BOUNDS,
                x_scale="jac", max_nfev=20_000,
            )
        except RuntimeError as exc:  # the trust region gave up
            raise USLFitError(f"the USL fit did not converge: {exc}") from None
    lam, sigma, kappa = (float(p) for p in params)
    residuals = x - usl(n, lam, sigma, kappa)
    total = float(np.sum((x - np.mean(x)) ** 2))
    errors = [_stderr(covariance, k) for k in range(3)]
    return USLFit(
        lam=lam, sigma=sigma, kappa=kappa,
        lam_stderr=errors[0], sigma_stderr=errors[1], kappa_stderr=errors[2],
        r_squared=1.0 - float(np.sum(residuals**2)) / total,
        points=len(n),
    )


def _stderr(covariance: np.ndarray, k: int) -> float | None:
    variance = float(covariance[k, k])
    return math.sqrt(variance) if math.isfinite(variance) and variance >= 0 else None


@dataclass(frozen=True, slots=True)
class Holdout:
    """One point left out of the fit, and what the fit of the others predicts for it."""

    load: float
    measured: float
    predicted: float | None
    """X at this load by the law fitted to every other point; None when they cannot be fitted."""

    @property
    def error(self) -> float | None:
        """(predicted − measured) / measured: +0.1 predicts 10 % too much; None without a
        prediction or a throughput to compare it with."""
        if self.predicted is None or self.measured == 0:
            return None
        return (self.predicted - self.measured) / self.measured


def holdout(load: Sequence[float], throughput: Sequence[float]) -> list[Holdout]:
    """Leave-one-out: for each point in turn, the law fitted to the others predicts it. Needs one
    distinct load more than a fit does (USLFitError otherwise)."""
    distinct = len(set(load))
    if distinct <= MIN_POINTS:
        raise USLFitError(
            f"predicting a step the fit was not shown needs at least {MIN_POINTS + 1} distinct loads, got {distinct}"
        )
    held = []
    for k, (n, x) in enumerate(zip(load, throughput, strict=True)):
        try:
            others = fit_usl([*load[:k], *load[k + 1 :]], [*throughput[:k], *throughput[k + 1 :]])
        except USLFitError:
            held.append(Holdout(float(n), float(x), None))
        else:
            held.append(Holdout(float(n), float(x), others.throughput(n)))
    return held
