"""Seconds per move of the Battle Sheep ``search`` baseline, compiled and on ``rules.py``, on the same decisions.

``python -m envs.battle_sheep.search_speed [--players 2] [--games 2] [--budget 600] [--seed 0] [--every 1]``
(:mod:`envs.common.search_speed`): every decision with a choice from ``--games`` random games, both searches
timed over them in alternating blocks, the compiled search's first call outside the timing.
"""

from __future__ import annotations

from envs.battle_sheep.baselines import search_policy
from envs.battle_sheep.rules import BattleSheepGame
from envs.common import search_speed


def main(argv: list[str] | None = None) -> None:
    search_speed.main(
        lambda players: BattleSheepGame(num_players=players),
        search_policy,
        players=2,
        budget=600,
        doc=__doc__,
        argv=argv,
    )


if __name__ == "__main__":
    main()
