"""Barnyard: board and card games as PettingZoo AEC environments with action masks.

Import style, as in PettingZoo::

    from envs import battle_sheep_v0
    env = battle_sheep_v0.env(render_mode="ansi", num_players=3)

Importing ``envs`` also registers every game with PettingZoo's registry, so that
``pettingzoo.make("aec", "barnyard/battle_sheep-v0")`` works. Game modules are imported lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

from pettingzoo import register

GAMES: tuple[str, ...] = ("battle_sheep", "bestiarium", "boaring", "beasty_borders")
"""Every game id; ``envs.<game>_v0`` is its public module."""

ENV_IDS: dict[str, str] = {game: f"barnyard/{game}-v0" for game in GAMES}
"""PettingZoo registry id of each game."""

for _game, _id in ENV_IDS.items():
    register("aec", _id, entry_point=f"envs.{_game}_v0:env")


def module(game: str) -> Any:
    """The public module ``envs.<game>_v0`` of a game id; a clear error for an unknown game."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; available: {', '.join(GAMES)}")
    return importlib.import_module(f"envs.{game}_v0")


def __getattr__(name: str) -> Any:
    if name.endswith("_v0") and name[:-3] in GAMES:
        return importlib.import_module(f"envs.{name}")
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
