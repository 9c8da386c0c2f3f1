"""The tournament: ratings with intervals, tiers, per-map heterogeneity, seasons.

Pure NumPy (no JAX) except where a season actually plays games through `marl_bgs.evaluate`.
"""

from .entrants import Entrant, SeasonSpec, load_entrants, parse_entrants
from .heterogeneity import meta_analysis, per_map_ratings
from .intervals import Intervals, bootstrap
from .ratings import Fit, fit_btd, fit_counts, pair_counts, theta_to_elo
from .schedule import Fixture, challenge, round_robin
from .tiers import Tier, tier_of, tier_table, win_chance

__all__ = [
    "Entrant",
    "Fit",
    "Fixture",
    "Intervals",
    "SeasonSpec",
    "Tier",
    "bootstrap",
    "challenge",
    "fit_btd",
    "fit_counts",
    "load_entrants",
    "meta_analysis",
    "pair_counts",
    "parse_entrants",
    "per_map_ratings",
    "round_robin",
    "theta_to_elo",
    "tier_of",
    "tier_table",
    "win_chance",
]
