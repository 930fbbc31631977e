"""Suite-wide settings that must be in place before any test module imports a library, and the example game.

The example game Pig (``tests/example_game/pig``, the walkthrough of ``docs/adding_a_game.md``) joins the suite
the way a game from outside the ``envs`` package joins Barnyard: its folder is importable (here: on ``sys.path``)
and ``envs.register_game(pig.INFO)`` registers it. That happens here, before pytest collects any test module, so
every generic test parametrised over ``envs.GAMES`` runs on Pig too. Subprocesses (the ``barnyard`` commands, the
web server) find it through ``PYTHONPATH`` and register it at ``import envs`` through ``BARNYARD_GAMES``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# A local Ray started by the suite binds to the loopback address: with this variable at 0, Ray's
# `get_node_ip_address` returns 127.0.0.1 instead of the LAN address "from the perspective" of the network, and
# the GCS, raylet and workers listen there. `ray.init(_node_ip_address="127.0.0.1")` does not do it in Ray 2.60
# (the GCS still listens on every interface). Ray reads the variable when it is imported, hence here.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

EXAMPLE_GAMES = Path(__file__).resolve().parent / "example_game"
"""The folder holding the example game's package (``pig``) and its public module (``pig_v0``)."""

if str(EXAMPLE_GAMES) not in sys.path:
    sys.path.insert(0, str(EXAMPLE_GAMES))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(EXAMPLE_GAMES), os.environ.get("PYTHONPATH"))))
games = [g for g in os.environ.get("BARNYARD_GAMES", "").split(",") if g.strip()]
os.environ["BARNYARD_GAMES"] = ",".join(dict.fromkeys([*games, "pig"]))

import pig  # noqa: E402

import envs  # noqa: E402  (after sys.path: BARNYARD_GAMES names pig)

envs.register_game(pig.INFO)  # the one public call (a second registration of the same descriptor does nothing)


import signal  # noqa: E402
from collections.abc import Iterator  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Stop the test with a TimeoutError after 20 s instead of hanging the suite: for tests of work that must not be
    done at all (a schedule of 10**10 games built before the first one), where the code before the fix ran on for
    minutes. The tests assert what was allocated or called, not the time."""

    def stop(signum: int, frame: object) -> None:
        raise TimeoutError("still running after 20 s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
