"""``python -m training serve [--host 127.0.0.1] [--port 8000] [--ttl 1800]``: play, watch and replay in a browser.

Starts the web app (``training/play/web/app.py``) with uvicorn; it needs the web extra: ``pip install -e ".[web]"``.
It listens on 127.0.0.1 (this machine only) unless ``--host`` says otherwise. Open the address it prints. It
answers only requests that name it as 127.0.0.1, localhost, ::1, the ``--host`` address or an ``--allow-host``
name.
``--llm SPEC`` offers a language-model seat (``llm:MODEL@URL,...``, docs/llm.md) on the page; the page offers no other
(a seat sends requests, with the API key, to the URL its spec names: only the server's operator picks it).
Games and opened files are kept in memory until ``--ttl`` seconds after their last request (default 30 minutes),
at most 200 at a time (opened files: 32 MiB together). ``--checkpoint-dir DIR`` adds a folder of checkpoints to
list and accept besides checkpoints/ and runs/.

Slow clients are cut (:func:`server_options`): a request's headers must arrive within ``HEADER_SECONDS`` (10 s, a
subclass of uvicorn's h11 protocol, since uvicorn has no header timeout of its own), its body within
``app.BODY_SECONDS`` (30 s, in the app: 408 and the connection closed; a body the route answers without reading
it, within 30 s of the answer, or the protocol closes the connection), and an idle kept-alive connection is
closed after uvicorn's ``timeout_keep_alive`` (5 s). A request's line and headers are at most
``app.MAX_HEADER_BYTES`` (16 KiB): a longer head is refused, with 400 by h11 when it arrives in pieces
(``h11_max_incomplete_event_size``), with 431 by the app when it arrives in one read (h11 parses that whole).
"""

from __future__ import annotations

import argparse
import ipaddress
from pathlib import Path
from typing import Any

HEADER_SECONDS = 10.0
"""A request's line and headers must arrive whole within this many seconds of the connection (or of the first byte
after a kept-alive response); the connection is closed otherwise."""
KEEP_ALIVE_SECONDS = 5.0
"""uvicorn's ``timeout_keep_alive``: an idle connection is closed this long after its last response."""


def bounded_h11(header_seconds: float, body_seconds: float = 30.0) -> type:
    """uvicorn's h11 protocol with a deadline on each request's line and headers (a slow-header client, sending
    a byte now and then, is cut after ``header_seconds``; uvicorn itself waits for ever), and on the rest of a
    body that the route answered without reading (``GET /`` with a ``Content-Length``): the connection is closed
    unless it has arrived ``body_seconds`` after the response (uvicorn reads and drops it for ever, each byte
    restarting its keep-alive timer)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        _body_timer: Any = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._head_timer = self.loop.call_later(header_seconds, self._head_expired)

        def _waiting_for_head(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if (
                self._waiting_for_head()
                and self._head_timer is None
                and not self.transport.is_closing()
                and self.conn.their_state is h11.IDLE
            ):
                self._head_timer = self.loop.call_later(header_seconds, self._head_expired)

        def on_response_complete(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.SEND_BODY:
                # answered before its body was read: the rest has body_seconds to arrive
                self._body_timer = self.loop.call_later(body_seconds, self._body_expired, self.cycle)

        def connection_lost(self, exc: Exception | None) -> None:
            for timer in (self._head_timer, self._body_timer):
                if timer is not None:
                    timer.cancel()
            self._head_timer = self._body_timer = None
            super().connection_lost(exc)

        def _body_expired(self, cycle: Any) -> None:
            self._body_timer = None
            if self.cycle is cycle and self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
                self.transport.close()

        def _head_expired(self) -> None:
            self._head_timer = None
            if self._waiting_for_head() and not self.transport.is_closing():
                self.transport.close()

    return BoundedH11Protocol


def server_options(
    header_seconds: float = HEADER_SECONDS,
    keep_alive_seconds: float = KEEP_ALIVE_SECONDS,
    body_seconds: float | None = None,
) -> dict[str, Any]:
    """The uvicorn settings the server runs with (``serve`` and the tests alike): slow headers cut after
    ``header_seconds``, idle connections after ``keep_alive_seconds``, the unread rest of a body after
    ``body_seconds`` (default the app's ``BODY_SECONDS``), headers at most the app's ``MAX_HEADER_BYTES``."""
    from training.play.web.app import BODY_SECONDS, MAX_HEADER_BYTES

    if body_seconds is None:
        body_seconds = BODY_SECONDS
    return {
        "http": bounded_h11(header_seconds, body_seconds),
        "timeout_keep_alive": keep_alive_seconds,
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        "log_level": "warning",
    }


def llm_seats(specs: list[str]) -> dict[str, Any]:
    """``--llm`` specs as the app's extra seat factories ``(game, options, seat) -> policy``, each checked first
    (its options, its key's variable; nothing is contacted): ValueError naming what is wrong."""
    from training.arena.llm import LLMPolicy
    from training.arena.players import make_policy
    from training.specs import parse_llm_spec

    seats: dict[str, Any] = {}
    for spec in specs:
        if not spec.startswith("llm:"):
            raise ValueError(f"--llm {spec[:60]!r}: give an llm:MODEL@URL spec")
        LLMPolicy(spec, parse_llm_spec(spec.removeprefix("llm:")))

        def factory(game: str, options: dict[str, Any], seat: int, spec: str = spec) -> Any:
            return make_policy(spec, game, options, seed=seat)

        seats[spec] = factory
    return seats


def main(argv: list[str] | None = None) -> None:
    """``python -m training serve``: run the app with uvicorn."""
    parser = argparse.ArgumentParser(
        prog="python -m training serve", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the page may be reached as, besides 127.0.0.1, localhost, ::1 and --host "
        "(repeat for several); requests naming any other host are refused",
    )
    parser.add_argument(
        "--ttl",
        type=float,
        default=1800.0,
        help="seconds a game or opened file is kept after its last request (default 1800)",
    )
    parser.add_argument(
        "--checkpoint-dir",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a folder of checkpoints to list and accept, besides checkpoints/ and runs/ here "
        "(repeat for several); no other path is loaded",
    )
    parser.add_argument(
        "--llm",
        action="append",
        default=[],
        metavar="SPEC",
        help="a language-model seat the page offers, llm:MODEL@URL[,OPTION=VALUE...] (docs/llm.md; repeat for "
        "several): the page offers only these, since a seat sends requests, with the key, to the URL it names",
    )
    args = parser.parse_args(argv)
    try:
        extra = llm_seats(args.llm)
    except ValueError as err:
        parser.error(f"--llm: {err}")
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
    app = create_app(
        SessionStore(ttl=args.ttl),
        allowed_hosts=hosts,
        checkpoint_dirs=args.checkpoint_dir,
        warm=True,
        freeze=True,
        extra_policies=extra,
    )
    uvicorn.run(app, host=args.host, port=args.port, **server_options())
