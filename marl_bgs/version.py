"""The package's version, in a module that imports nothing, so that provenance records
(evaluation metadata, replays, demonstrations) can name it without loading the engine.
Keep it equal to `version` in pyproject.toml (a test checks)."""

__version__ = "0.1.0"
