"""Game metrics: the sixteen priority values kept inside the compiled loop."""

from .priority import METRIC_DESCRIPTIONS, PRIORITY_NAMES, priority_update

__all__ = ["METRIC_DESCRIPTIONS", "PRIORITY_NAMES", "priority_update"]
