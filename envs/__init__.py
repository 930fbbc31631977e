"""Barnyard: board and card games as PettingZoo AEC environments with action masks.

Importing ``envs`` registers every game with PettingZoo's registries (PettingZoo 1.27's ``make`` style)::

    import envs  # registers the barnyard/* ids
    from pettingzoo import make
    env = make("aec", "barnyard/battle_sheep-v0", render_mode="ansi", num_players=3)
    parallel = make("parallel", "barnyard/boaring-v0", num_players=4)  # games with a Parallel view

The rule engine alone (no AEC env), like ``pyspiel.load_game`` or pgx's ``make``::

    game = envs.make_game("boaring", num_players=3)  # an envs.common.game.Game
    state = game.initial_state(np.random.default_rng(0))

The module style works too: ``from envs import battle_sheep_v0; battle_sheep_v0.env(num_players=3)``. Game modules
are imported lazily (registration imports none of them). Bestiarium is at version 1 (``envs.bestiarium_v1``);
``envs.bestiarium_v0`` raises PettingZoo's ``DeprecatedEnv``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pettingzoo import register

if TYPE_CHECKING:
    from envs.common.game import Game

VERSIONS: dict[str, int] = {"battle_sheep": 0, "bestiarium": 1, "boaring": 0, "beasty_borders": 0}
"""Every game id and the current version of its env: registering a game is its entry here (docs/adding_a_game.md).
PettingZoo's convention: a change of observation, action or reward is a new version; an older version's module
raises ``DeprecatedEnv``. Each spec page has the version history."""

GAMES: tuple[str, ...] = tuple(VERSIONS)
"""Every game id; ``envs.<game>_v<N>`` is its public module (N: :data:`VERSIONS`)."""

MODULES: dict[str, str] = {game: f"{game}_v{VERSIONS[game]}" for game in GAMES}
"""The public module name of each game (``envs.<name>``)."""

ENV_IDS: dict[str, str] = {game: f"barnyard/{game}-v{VERSIONS[game]}" for game in GAMES}
"""PettingZoo registry id of each game."""

ENGINES: dict[str, str] = {game: "".join(part.title() for part in game.split("_")) + "Game" for game in GAMES}
"""The rule engine's class of each game, ``<Game>Game`` in ``envs/<game>/rules.py`` (beside its ``OPTIONS`` table)."""

PARALLEL_GAMES: tuple[str, ...] = ("boaring",)
"""Games whose public module also offers ``parallel_env`` (registered in PettingZoo's parallel registry)."""

for _game, _id in ENV_IDS.items():
    register("aec", _id, entry_point=f"envs.{MODULES[_game]}:env")
for _game in PARALLEL_GAMES:
    register("parallel", ENV_IDS[_game], entry_point=f"envs.{MODULES[_game]}:parallel_env")


def module(game: str) -> Any:
    """The public module ``envs.<game>_v<N>`` (current version) of a game id; a clear error for an unknown game."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; available: {', '.join(GAMES)}")
    return importlib.import_module(f"envs.{MODULES[game]}")


def _rules(game: str) -> Any:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; available: {', '.join(GAMES)}")
    return importlib.import_module(f"envs.{game}.rules")


def game_options(game: str) -> Any:
    """The options table of a game (``envs/<game>/rules.py``'s ``OPTIONS``, an
    :class:`envs.common.options.OptionTable`); a clear error for an unknown game."""
    return _rules(game).OPTIONS


def make_game(game: str, **options: Any) -> Game:
    """The rule engine of ``game`` (a short id of :data:`GAMES`) with ``options``, without an AEC env around it.

    A :class:`ValueError` for an unknown game; a :class:`~envs.common.game.ConfigError` for an option the game does
    not have (also a ``TypeError``) or a value it does not allow, naming what is allowed."""
    rules = _rules(game)
    rules.OPTIONS.check_names(options, game)
    return getattr(rules, ENGINES[game])(**options)


def __getattr__(name: str) -> Any:
    game, _, version = name.rpartition("_v")
    if game in GAMES and version.isdigit():
        return importlib.import_module(f"envs.{name}")  # an old version raises DeprecatedEnv
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
