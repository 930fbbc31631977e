"""Barnyard: board and card games as PettingZoo AEC environments with action masks.

Import style, as in PettingZoo::

    from envs import battle_sheep_v0
    env = battle_sheep_v0.env(render_mode="ansi", num_players=3)

Importing ``envs`` also registers every game with PettingZoo's registry, so that
``pettingzoo.make("aec", "barnyard/battle_sheep-v0")`` works. Game modules are imported lazily. Bestiarium is at
version 1 (``envs.bestiarium_v1``); ``envs.bestiarium_v0`` raises PettingZoo's ``DeprecatedEnv``.
"""

from __future__ import annotations

import importlib
from typing import Any

from pettingzoo import register

GAMES: tuple[str, ...] = ("battle_sheep", "bestiarium", "boaring", "beasty_borders")
"""Every game id; ``envs.<game>_v<N>`` is its public module (N: :data:`VERSIONS`)."""

VERSIONS: dict[str, int] = {"battle_sheep": 0, "bestiarium": 1, "boaring": 0, "beasty_borders": 0}
"""The current version of each env (PettingZoo's convention: a change of observation, action or reward is a new
version; an older version's module raises ``DeprecatedEnv``). Each spec page has the version history."""

MODULES: dict[str, str] = {game: f"{game}_v{VERSIONS[game]}" for game in GAMES}
"""The public module name of each game (``envs.<name>``)."""

ENV_IDS: dict[str, str] = {game: f"barnyard/{game}-v{VERSIONS[game]}" for game in GAMES}
"""PettingZoo registry id of each game."""

for _game, _id in ENV_IDS.items():
    register("aec", _id, entry_point=f"envs.{MODULES[_game]}:env")


def module(game: str) -> Any:
    """The public module ``envs.<game>_v<N>`` (current version) of a game id; a clear error for an unknown game."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; available: {', '.join(GAMES)}")
    return importlib.import_module(f"envs.{MODULES[game]}")


def __getattr__(name: str) -> Any:
    game, _, version = name.rpartition("_v")
    if game in GAMES and version.isdigit():
        return importlib.import_module(f"envs.{name}")  # an old version raises DeprecatedEnv
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
