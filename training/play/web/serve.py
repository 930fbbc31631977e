"""``python -m training serve [--host 127.0.0.1] [--port 8000] [--ttl 1800]``: play, watch and replay in a browser.

Starts the web app (``training/play/web/app.py``) with uvicorn; it needs the web extra: ``pip install -e ".[web]"``.
It listens on 127.0.0.1 (this machine only) unless ``--host`` says otherwise. Open the address it prints. It
answers only requests that name it as 127.0.0.1, localhost, ::1, the ``--host`` address or an ``--allow-host``
name.
Games and opened files are kept in memory until ``--ttl`` seconds after their last request (default 30 minutes),
at most 200 at a time (opened files: 32 MiB together). ``--checkpoint-dir DIR`` adds a folder of checkpoints to
list and accept besides checkpoints/ and runs/.
"""

from __future__ import annotations

import argparse
import ipaddress
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    """``python -m training serve``: run the app with uvicorn."""
    parser = argparse.ArgumentParser(prog="python -m training serve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a host name the page may be reached as, besides 127.0.0.1, localhost, ::1 and --host "
                             "(repeat for several); requests naming any other host are refused")
    parser.add_argument("--ttl", type=float, default=1800.0,
                        help="seconds a game or opened file is kept after its last request (default 1800)")
    parser.add_argument("--checkpoint-dir", action="append", default=[], type=Path, metavar="DIR",
                        help="a folder of checkpoints to list and accept, besides checkpoints/ and runs/ here "
                             "(repeat for several); no other path is loaded")
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from training.play.web.app import LOOPBACK_HOSTS, create_app
        from training.play.web.sessions import SessionStore
    except ImportError as err:  # pragma: no cover - the [web] extra brings them
        raise SystemExit(f'error: the web app needs its extra ({err}): pip install -e ".[web]"') from None
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = args.host == "localhost"
    if not loopback:
        print(f"warning: listening on {args.host}: other machines can reach this server")
    print(f"Barnyard on http://{args.host}:{args.port}/  (Ctrl-C stops)")
    hosts = list(LOOPBACK_HOSTS) + args.allow_host
    if args.host not in ("0.0.0.0", "::", ""):
        hosts.append(args.host)
    app = create_app(SessionStore(ttl=args.ttl), allowed_hosts=hosts, checkpoint_dirs=args.checkpoint_dir)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
