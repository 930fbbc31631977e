"""Seconds per move of the Boaring ``search`` baseline, compiled and pure Python, on the same decisions in one run.

``python -m envs.boaring.search_speed [--players 4] [--games 2] [--budget 50] [--seed 0] [--every 1]``
(:mod:`envs.common.search_speed`): every decision with a choice from ``--games`` random games, both searches
timed over them in alternating blocks, the compiled search's first call outside the timing.
"""

from __future__ import annotations

from envs.boaring.baselines import search_policy
from envs.boaring.rules import BoaringGame
from envs.common import search_speed


def main(argv: list[str] | None = None) -> None:
    search_speed.main(
        lambda players: BoaringGame(num_players=players),
        search_policy,
        players=4,
        budget=50,
        doc=__doc__,
        digits=5,
        argv=argv,
    )


if __name__ == "__main__":
    main()
