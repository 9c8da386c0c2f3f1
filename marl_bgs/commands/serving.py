"""`marl-bgs view` and `client`: a page served on 127.0.0.1 (the replay viewer, the
BattleClient) until Ctrl-C."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _view(args: argparse.Namespace) -> int:
    from ..core.checks import choice, whole
    from ..replay import load_replay
    from ..replay.read import MAX_BYTES
    from ..replay.view import VIEWS
    from ..viewer_server import start_server, viewer_url

    path = Path(args.replay)
    port = whole(args.port, "--port", 0, 65535)
    if args.view is not None:
        choice(args.view, "--view", ("oracle", *VIEWS))
    if not path.is_file():
        raise ValueError(f"replay: no file at {path}")
    with open(path, "rb") as f:  # read once: what is checked is what is served
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"replay: larger than the {MAX_BYTES:,}-byte limit")
    replay = load_replay(data)  # a bad file is refused here, with the reader's message
    if args.tick is not None:
        whole(args.tick, "--tick", 0, replay.ticks)
    try:
        server = start_server(path, port, data)
    except OSError as err:
        raise ValueError(f"--port: cannot listen on 127.0.0.1:{port} ({err.strerror})") from None
    url = viewer_url(server.server_address[1], path, args.tick, args.view)
    return _serve(server, f"serving the replay viewer at {url}  (Ctrl-C stops)", url, args)


def _serve(server, message: str, url: str, args: argparse.Namespace) -> int:
    """Say where, open a browser unless told not to, and serve until Ctrl-C."""
    import time
    import webbrowser

    print(message, flush=True)
    if not args.no_browser:
        webbrowser.open(url)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()
    return 0


def _client(args: argparse.Namespace) -> int:
    from ..client_server import PLAY_PAGE, default_spec, make_battles, resolve_spec, start_client
    from ..core.checks import whole
    from ..outputs import check_folder

    port = whole(args.port, "--port", 0, 65535)
    out_dir = check_folder(args.out, "--out")
    extra = {}
    vs, spec = resolve_spec(args.vs, "--vs")
    extra[vs] = spec
    mates = None
    if args.mates is not None:
        mates, spec = resolve_spec(args.mates, "--mates")
        extra[mates] = spec
    rosters = None
    if args.rosters is not None:
        rosters = [[c for c in side.split(",") if c] for side in args.rosters.split(":")]
    humans = [h for h in args.human.split(",") if h]
    defaults = default_spec(args.map, humans, vs, mates, args.winning_score, args.horizon, rosters)
    battles = make_battles(extra)
    battles.new(json.dumps(defaults))  # refuse bad settings here, with the engine's message
    battles.sessions.clear()
    try:
        server = start_client(battles, defaults, out_dir, port)
    except OSError as err:
        raise ValueError(f"--port: cannot listen on 127.0.0.1:{port} ({err.strerror})") from None
    url = f"http://127.0.0.1:{server.server_address[1]}{PLAY_PAGE}"
    where = f"replays go to {args.out}/; Ctrl-C stops"
    return _serve(server, f"serving the BattleClient at {url}  ({where})", url, args)


def add_commands(sub: Any) -> None:
    """Add `view` and `client` to `sub`, the `marl-bgs` subcommands (`add_subparsers`'
    action)."""
    view = sub.add_parser("view", help="serve the replay viewer on 127.0.0.1 and open a replay")
    view.add_argument("replay", help="a replay file (.json or .json.gz)")
    view.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free)")
    view.add_argument("--tick", type=int, help="open at this tick")
    view.add_argument("--view", help="oracle, a, b, or one agent such as a2")
    view.add_argument("--no-browser", action="store_true", help="print the address only")
    view.set_defaults(run=_view)

    cl = sub.add_parser(
        "client",
        help="play a game in the browser beside or against Systems (the BattleClient)",
        description="Serves the BattleClient page on 127.0.0.1, backed by the Python engine: "
        "the page's settings start from these, and any System can play the other slots.",
    )
    cl.add_argument("--map", type=int, default=47, help="map id, 0-51")
    cl.add_argument("--human", default="a0", help="human slots, e.g. a0,a1 (any of a0..b4)")
    cl.add_argument(
        "--vs",
        default="tdm-alpha",
        help="who plays the other slots: a registered name, a run folder or a policy .npz",
    )
    cl.add_argument("--mates", help="who plays the humans' AI teammates (default: --vs)")
    cl.add_argument("--rosters", help="classes, e.g. mage,priest:rogue,hunter (default 5 v 5)")
    cl.add_argument("--winning-score", type=int, default=5, help="points that win a game")
    cl.add_argument("--horizon", type=int, default=200, help="ticks before a draw")
    cl.add_argument("--out", default="battles", help="folder for the finished games' replays")
    cl.add_argument("--port", type=int, default=8766, help="port on 127.0.0.1 (0: any free)")
    cl.add_argument("--no-browser", action="store_true", help="print the address only")
    cl.set_defaults(run=_client)
