"""Game metrics: the sixteen priority values kept inside the compiled loop."""

from .priority import PRIORITY_NAMES, priority_update

__all__ = ["PRIORITY_NAMES", "priority_update"]
