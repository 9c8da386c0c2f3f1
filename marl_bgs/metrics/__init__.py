"""Game metrics kept inside the compiled loop: the sixteen priority values, and the full
who-did-what-to-whom columns (`metrics.full`)."""

from .priority import (
    METRIC_DESCRIPTIONS,
    PRIORITY_NAMES,
    PriorityMetrics,
    priority_record,
    priority_start,
    priority_update,
    priority_vector,
)

__all__ = [
    "METRIC_DESCRIPTIONS",
    "PRIORITY_NAMES",
    "PriorityMetrics",
    "priority_record",
    "priority_start",
    "priority_update",
    "priority_vector",
]
