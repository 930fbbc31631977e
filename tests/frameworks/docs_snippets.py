"""Helpers of the framework tests (not a test module): the code blocks of docs/frameworks.md, run as printed, and
the check that a Ray of the tests listens on loopback only."""

from __future__ import annotations

import re
from pathlib import Path

import envs

DOC = Path(__file__).resolve().parents[2] / "docs" / "frameworks.md"


def game_setup(game: str) -> dict:
    """A small but real set-up of ``game`` for the snippets (their ``OPTIONS`` / ``OPPONENTS`` lines are replaced by
    these): the default options, and an opponent for every other seat, random ones and, with three or more
    players, one ``greedy``."""
    others = envs.make_game(game).num_players - 1
    return {"OPTIONS": {}, "OPPONENTS": ["random"] * others if others < 2 else ["random"] * (others - 1) + ["greedy"]}


GAME_SETUPS: dict[str, dict] = {game: game_setup(game) for game in envs.GAMES}
"""Every registered game's set-up (:func:`game_setup`)."""


def snippet(name: str, **constants) -> str:
    """The ``<!-- snippet: name -->`` code block of docs/frameworks.md with ``NAME = ...`` lines replaced.

    Every constant must be assigned on a line of its own in the block, so that a test cannot silently stop
    exercising a value the documentation prints.
    """
    text = DOC.read_text()
    match = re.search(rf"<!-- snippet: {re.escape(name)} -->\s*```python\n(.*?)```", text, re.S)
    if match is None:
        raise AssertionError(f"no snippet {name!r} in {DOC}")
    code = match.group(1)
    for key, value in constants.items():
        code, count = re.subn(rf"^{key} = .*$", f"{key} = {value!r}", code, count=1, flags=re.M)
        if count != 1:
            raise AssertionError(f"snippet {name!r} has no line '{key} = ...'")
    return code


def run_snippet(name: str, **constants) -> dict:
    """Execute a snippet in a fresh namespace (as ``__main__``) and return that namespace."""
    namespace: dict = {"__name__": "__main__"}
    exec(compile(snippet(name, **constants), f"{DOC}:{name}", "exec"), namespace)
    return namespace


def listening_addresses() -> dict[str, str]:
    """``{"ip:port": process name}`` of every listening TCP socket of this process and its children."""
    import psutil  # a Ray dependency

    ours = {p.pid: p.name() for p in [psutil.Process(), *psutil.Process().children(recursive=True)]}
    return {
        f"{c.laddr.ip}:{c.laddr.port}": ours[c.pid]
        for c in psutil.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN and c.pid in ours
    }


def beyond_loopback(sockets: dict[str, str]) -> dict[str, str]:
    """The entries of ``sockets`` whose address is not a loopback address."""
    return {
        addr: name
        for addr, name in sockets.items()
        if addr.rsplit(":", 1)[0] not in ("127.0.0.1", "::1", "::ffff:127.0.0.1")
    }
