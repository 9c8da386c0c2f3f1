"""The `marl-bgs` subcommands, one module per group: `play`, `evaluation` (eval, crossplay,
scenarios), `serving` (view, client) and `learning` (train, demos, plot).

Each module's `add_commands` adds its subcommands' parsers, each setting `run`, the function
that carries it out; `marl_bgs.cli` puts them together in one parser and runs the one chosen.
"""
