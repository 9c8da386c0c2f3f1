"""The Bradley-Terry-Davidson rating: one joint fit of every game, on an Elo scale.

Each entrant i has a strength theta_i (natural log scale) and the field shares one draw
parameter nu = exp(delta). In a game between i and j,

    P(i wins) = e^{theta_i} / Z,  P(draw) = nu * e^{(theta_i + theta_j) / 2} / Z,
    P(j wins) = e^{theta_j} / Z,  Z = e^{theta_i} + e^{theta_j} + nu * e^{(theta_i + theta_j) / 2}.

The log-likelihood is concave in (theta, delta), so Newton's method with a backtracking line
search finds the maximum. It depends only on each pairing's win/draw/loss counts, which makes
the fit independent of game order and lets thousands of bootstrap refits run as one batch.

Degenerate fields: an entrant that never loses (or never wins), or a season without a single
draw, has no finite maximum. Every pairing that played therefore gets a weak prior worth
`prior_games` virtual games (default 1) split evenly between win, draw and loss. With 200 games
a pairing this moves ratings by a few Elo (far inside their intervals) and keeps every rating
and the draw parameter finite; `prior_games=0` gives the pure maximum likelihood fit and then
raises an error when no finite maximum exists.

Elo = 1200 + (400 / ln 10) * (theta - mean theta): 400 Elo per factor of ten in the odds of a
decisive game, and the field averages 1,200.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of natural-log strength
ELO_CENTRE = 1200.0
OUTCOMES = ("a", "draw", "b")  # outcome codes 0, 1, 2: a wins, draw, b wins
DEFAULT_PRIOR_GAMES = 1.0
MAX_NEWTON = 100
TOLERANCE = 1e-9  # largest Newton step (natural-log units) counted as converged


@dataclass(frozen=True)
class PairCounts:
    """Win/draw/loss counts per pairing (i < j): the sufficient statistics of the fit.

    `counts[..., k, :]` holds (i wins, draws, j wins) for pairing `pairs[k] = (i, j)`; a leading
    batch axis holds bootstrap resamples.
    """

    entrants: tuple[str, ...]
    pairs: np.ndarray  # (K, 2) int, i < j
    counts: np.ndarray  # (..., K, 3) float


@dataclass(frozen=True)
class Fit:
    """Ratings of one fit (or a batch of refits when arrays carry a leading axis)."""

    entrants: tuple[str, ...]
    theta: np.ndarray  # (..., n) natural-log strengths, summing to zero
    delta: np.ndarray  # (...) log of the draw parameter nu
    loglik: np.ndarray  # (...) log-likelihood of the real games (prior excluded)
    iterations: int
    converged: np.ndarray  # (...) bool
    prior_games: float
    covariance: np.ndarray | None = None  # (n, n) model covariance of theta (single fits)

    @property
    def elo(self) -> np.ndarray:
        return theta_to_elo(self.theta)

    @property
    def nu(self) -> np.ndarray:
        return np.exp(self.delta)

    def elo_of(self) -> dict[str, float]:
        """{entrant: Elo} for a single fit."""
        if self.theta.ndim != 1:
            raise ValueError("elo_of: this is a batch of refits; index .elo instead")
        return {name: float(r) for name, r in zip(self.entrants, self.elo, strict=True)}

    def elo_sd(self) -> np.ndarray:
        """Model-based standard errors of the Elo ratings (inverse observed information)."""
        if self.covariance is None:
            raise ValueError("elo_sd: only single fits carry a covariance")
        return ELO_PER_NAT * np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))


def theta_to_elo(theta: np.ndarray) -> np.ndarray:
    """Elo from natural-log strengths, centred so the field averages 1,200."""
    theta = np.asarray(theta, dtype=float)
    return ELO_CENTRE + ELO_PER_NAT * (theta - theta.mean(axis=-1, keepdims=True))


def outcome_codes(outcomes: Sequence) -> np.ndarray:
    """0/1/2 codes from 'a'/'draw'/'b' strings (or the codes themselves)."""
    arr = np.asarray(outcomes)
    if arr.dtype.kind in "iu":
        codes = arr.astype(np.int64)
        bad = ~np.isin(codes, (0, 1, 2))
    else:
        lookup = {name: k for k, name in enumerate(OUTCOMES)}
        codes = np.array([lookup.get(str(o), -1) for o in arr], dtype=np.int64)
        bad = codes < 0
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"outcome[{first}]: {arr[first]!r} is not one of 'a', 'draw', 'b' (or 0, 1, 2)"
        )
    return codes


def pair_counts(
    entrant_a: Sequence[str],
    entrant_b: Sequence[str],
    outcome: Sequence,
    entrants: Sequence[str] | None = None,
) -> PairCounts:
    """Counts per pairing from games given as (entrant a, entrant b, outcome) columns."""
    a = np.asarray(entrant_a, dtype=object)
    b = np.asarray(entrant_b, dtype=object)
    codes = outcome_codes(outcome)
    if not len(a) == len(b) == len(codes):
        raise ValueError(
            f"games: entrant_a, entrant_b and outcome differ in length "
            f"({len(a)}, {len(b)}, {len(codes)})"
        )
    names = tuple(sorted(set(a) | set(b))) if entrants is None else tuple(entrants)
    if len(set(names)) != len(names):
        raise ValueError(f"entrants: names repeat in {list(names)}")
    index = {name: k for k, name in enumerate(names)}
    ia = np.array([index.get(x, -1) for x in a], dtype=np.int64)
    ib = np.array([index.get(x, -1) for x in b], dtype=np.int64)
    for col, idx, raw in (("entrant_a", ia, a), ("entrant_b", ib, b)):
        if (idx < 0).any():
            first = int(np.flatnonzero(idx < 0)[0])
            raise ValueError(f"{col}[{first}]: {raw[first]!r} is not among the entrants")
    same = ia == ib
    if same.any():
        first = int(np.flatnonzero(same)[0])
        raise ValueError(f"games[{first}]: {a[first]!r} cannot play itself in a rated game")
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    # from the lower-numbered entrant's side: a win for "a" is a win for lo when a is lo
    flipped = ia > ib
    side = np.where(flipped, 2 - codes, codes)
    n = len(names)
    key = lo * n + hi
    keys = np.unique(key)
    counts = np.zeros((len(keys), 3))
    np.add.at(counts, (np.searchsorted(keys, key), side), 1.0)
    pairs = np.stack([keys // n, keys % n], axis=1)
    return PairCounts(names, pairs, counts)


def _check_connected(n: int, pairs: np.ndarray, names: tuple[str, ...]) -> None:
    """Ratings compare entrants only through chains of games; refuse a split field."""
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in pairs:
        parent[root(int(i))] = root(int(j))
    groups = {root(k) for k in range(n)}
    if n < 2:
        raise ValueError(f"entrants: a rating needs at least two entrants, got {list(names)}")
    if len(groups) > 1:
        first = [names[k] for k in range(n) if root(k) == root(0)]
        other = [names[k] for k in range(n) if root(k) != root(0)]
        raise ValueError(
            f"games: entrants {first} and {other} are joined by no chain of games, "
            "so their ratings cannot be compared"
        )


def finite_without_prior(pc: PairCounts) -> bool:
    """Whether the pure maximum-likelihood ratings are finite (Ford's condition, with draws).

    Draw "i beats j" as an arrow i -> j, and a draw as arrows both ways; the ratings are
    finite exactly when every entrant reaches every other along the arrows. The draw
    parameter is finite when some but not all games are drawn.
    """
    n = len(pc.entrants)
    counts = np.asarray(pc.counts)
    reach = np.eye(n, dtype=bool)
    for (i, j), (w, d, lo) in zip(pc.pairs, counts, strict=True):
        reach[i, j] |= bool(w + d > 0)
        reach[j, i] |= bool(lo + d > 0)
    for k in range(n):  # transitive closure (Warshall)
        reach |= reach[:, k : k + 1] & reach[k : k + 1, :]
    drawn, total = counts[:, 1].sum(), counts.sum()
    return bool(reach.all() and 0 < drawn < total)


def _basis(n: int) -> np.ndarray:
    """An orthonormal basis (n, n-1) of strength vectors that sum to zero."""
    q, _ = np.linalg.qr(np.eye(n) - 1.0 / n)
    return q[:, : n - 1]


def _terms(x: np.ndarray, delta: np.ndarray, counts: np.ndarray):
    """Per-pairing log-likelihood, gradient and Hessian in (x = theta_i - theta_j, delta)."""
    d = delta[..., None]
    half = 0.5 * x
    top = np.maximum(np.abs(half), d)  # log-sum-exp, stable for large gaps
    ew, el, ed = np.exp(half - top), np.exp(-half - top), np.exp(d - top)
    z = ew + el + ed
    log_z = top + np.log(z)
    pw, pl, pd = ew / z, el / z, ed / z
    w, dr, lo = counts[..., 0], counts[..., 1], counts[..., 2]
    n = w + dr + lo
    ll = w * half - lo * half + dr * d - n * log_z
    gx = 0.5 * (w - lo) - 0.5 * n * (pw - pl)
    gd = dr - n * pd
    hxx = -n * 0.25 * ((pw + pl) - (pw - pl) ** 2)
    hdd = -n * pd * (1.0 - pd)
    hxd = n * 0.5 * (pw - pl) * pd
    return ll, gx, gd, hxx, hdd, hxd


def _loglik(theta, delta, counts, pairs) -> np.ndarray:
    """Log-likelihood of count tables at strengths theta and log draw parameter delta."""
    x = theta[..., pairs[:, 0]] - theta[..., pairs[:, 1]]
    return _terms(x, delta, counts)[0].sum(axis=-1)


def fit_counts(
    pc: PairCounts,
    prior_games: float = DEFAULT_PRIOR_GAMES,
    start: Fit | None = None,
    with_covariance: bool = True,
) -> Fit:
    """Maximise the (prior-regularised) log-likelihood for one count table or a batch of them.

    `start` warm-starts every refit from a previous fit (the full-data fit for bootstraps).
    """
    if not (isinstance(prior_games, (int, float)) and prior_games >= 0):
        raise ValueError(f"prior_games: expected a number >= 0, got {prior_games!r}")
    names, pairs = pc.entrants, pc.pairs
    n = len(names)
    _check_connected(n, pairs, names)
    real = np.asarray(pc.counts, dtype=float)
    no_maximum = (
        "games: no finite maximum likelihood (an entrant never won or never lost against the "
        "rest, or no game, or every game, was drawn); use prior_games > 0"
    )
    if prior_games == 0 and real.ndim == 2 and not finite_without_prior(pc):
        raise ValueError(no_maximum)
    counts = real + prior_games / 3.0
    batch = counts.shape[:-2]
    q = _basis(n)
    if start is not None:
        theta = np.broadcast_to(start.theta, batch + (n,)).copy()
        delta = np.broadcast_to(start.delta, batch).copy().astype(float)
    else:
        theta = np.zeros(batch + (n,))
        drawn = counts[..., 1].sum(-1) / np.maximum(counts.sum((-1, -2)), 1e-300)
        delta = np.log(np.clip(2.0 * drawn / np.maximum(1.0 - drawn, 1e-12), 1e-12, 1e12))
    i, j = pairs[:, 0], pairs[:, 1]
    onehot = np.zeros((len(pairs), n))
    onehot[np.arange(len(pairs)), i] = 1.0
    onehot[np.arange(len(pairs)), j] -= 1.0
    design = onehot @ q  # (K, n-1): x = design @ phi

    def evaluate(phi, delta):
        """Log-likelihood, gradient and Hessian in (phi, delta), summed over pairings."""
        ll, gx, gd, hxx, hdd, hxd = _terms(phi @ design.T, delta, counts)
        g = np.concatenate([gx @ design, gd.sum(-1)[..., None]], axis=-1)
        h_pp = np.einsum("kp,...k,kq->...pq", design, hxx, design, optimize=True)
        h_pd = (hxd @ design)[..., :, None]
        top = np.concatenate([h_pp, h_pd], axis=-1)
        bottom = np.concatenate([np.swapaxes(h_pd, -1, -2), hdd.sum(-1)[..., None, None]], -1)
        return ll.sum(-1), g, np.concatenate([top, bottom], axis=-2)

    phi = theta @ q
    now = evaluate(phi, delta)
    converged = np.zeros(batch, dtype=bool)
    iterations = 0
    for _ in range(MAX_NEWTON):
        iterations += 1
        ll_now, g, hess = now
        step = np.linalg.solve(-hess, g[..., None])[..., 0]
        step = np.where(np.isfinite(step), step, 0.0)
        step *= np.minimum(1.0, 5.0 / np.maximum(np.abs(step).max(-1, keepdims=True), 1e-300))
        scale = np.ones(batch)
        for _ in range(30):  # backtracking: accept the first step that does not lower ll
            cand = evaluate(phi + scale[..., None] * step[..., :-1], delta + scale * step[..., -1])
            ok = cand[0] >= ll_now - 1e-12 * np.abs(ll_now)
            if ok.all():
                break
            scale = np.where(ok, scale, 0.5 * scale)
        phi = phi + scale[..., None] * step[..., :-1]
        delta = delta + scale * step[..., -1]
        now = cand
        converged = np.abs(scale[..., None] * step).max(-1) < TOLERANCE
        if converged.all():
            break
    theta = phi @ q.T
    if prior_games == 0 and (np.abs(theta).max() > 30 or np.abs(delta).max() > 30):
        raise ValueError(no_maximum)  # a resample without a finite maximum
    cov = None
    if with_covariance and not batch:
        x = theta[pairs[:, 0]] - theta[pairs[:, 1]]
        _, _, _, hxx, hdd, hxd = _terms(x, delta, counts)
        info = np.zeros((n, n))
        info += -np.einsum("kp,k,kq->pq", onehot, hxx, onehot)
        cross = -(hxd @ onehot)
        full = np.block(
            [[q.T @ info @ q, (q.T @ cross)[:, None]], [(cross @ q)[None, :], -hdd.sum()]]
        )
        inv = np.linalg.inv(full)
        cov = q @ inv[:-1, :-1] @ q.T
    return Fit(
        entrants=names,
        theta=theta,
        delta=np.asarray(delta),
        loglik=_loglik(theta, delta, real, pairs),
        iterations=iterations,
        converged=np.asarray(converged),
        prior_games=float(prior_games),
        covariance=cov,
    )


def fit_btd(
    entrant_a: Sequence[str],
    entrant_b: Sequence[str],
    outcome: Sequence,
    entrants: Sequence[str] | None = None,
    prior_games: float = DEFAULT_PRIOR_GAMES,
) -> Fit:
    """One joint fit of every game given as (entrant a, entrant b, outcome a/draw/b)."""
    return fit_counts(pair_counts(entrant_a, entrant_b, outcome, entrants), prior_games)


def expected_probabilities(elo_i: float, elo_j: float, nu: float) -> tuple[float, float, float]:
    """(P(i wins), P(draw), P(j wins)) under the model for two Elo ratings."""
    x = (elo_i - elo_j) / ELO_PER_NAT
    w, lo, d = math.exp(x / 2), math.exp(-x / 2), nu
    z = w + lo + d
    return w / z, d / z, lo / z
