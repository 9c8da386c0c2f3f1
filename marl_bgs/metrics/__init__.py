"""Game metrics kept inside the compiled loop: the sixteen priority values, and the full
who-did-what-to-whom columns (`metrics.full`)."""

from .priority import METRIC_DESCRIPTIONS, PRIORITY_NAMES, priority_start, priority_update

__all__ = ["METRIC_DESCRIPTIONS", "PRIORITY_NAMES", "priority_start", "priority_update"]
