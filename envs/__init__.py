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
are imported lazily (registration reads each game's descriptor, ``envs/<game>/__init__.py``, and imports none of
its rooms). Bestiarium is at version 1 (``envs.bestiarium_v1``); ``envs.bestiarium_v0`` raises PettingZoo's
``DeprecatedEnv``.

A game from any importable package joins with :func:`register_game` (its descriptor, an :class:`GameInfo`), as
``gymnasium.register`` and ``pyspiel.register_game`` do: then ``make``, :func:`make_game`, the trainer, the harness,
``barnyard exploit``, the web page and the OpenSpiel bridge all offer it (``docs/adding_a_game.md``). A process
that should see such a game from its start (``barnyard`` commands, the web server) names the modules that register
it in the environment variable ``BARNYARD_GAMES`` (comma-separated), which ``import envs`` imports. An entry that does
not load (a module that is missing or raises, even ``SystemExit``; a descriptor whose package does not import) is
left out with a :class:`GameLoadWarning` naming it and why: the other games stay playable, and asking for that game
(:func:`make_game`, ``barnyard ... --game``) is an error that gives the reason (:data:`UNAVAILABLE_GAMES`).
"""

from __future__ import annotations

import importlib
import os
import warnings
from typing import TYPE_CHECKING, Any

from pettingzoo import register

from envs.common import registry
from envs.common.registry import GameImportError, GameInfo

if TYPE_CHECKING:
    from envs.common.game import Game

BUILTIN_GAMES: tuple[str, ...] = ("envs.battle_sheep", "envs.bestiarium", "envs.boaring", "envs.beasty_borders")
"""The packages of the games that ship with Barnyard, each with its descriptor ``INFO``: registering a game of this
package is its line here (docs/adding_a_game.md)."""

GAMES: tuple[str, ...] = ()
"""Every registered game id, in registration order (kept up to date by :func:`register_game`)."""
VERSIONS: dict[str, int] = {}
"""Each game's current env version. PettingZoo's convention: a change of observation, action or reward is a new
version; an older version's module raises ``DeprecatedEnv``. Each spec page has the version history."""
MODULES: dict[str, str] = {}
"""Each game's public module name (``battle_sheep_v0``; the module is ``GameInfo.public_module``)."""
ENV_IDS: dict[str, str] = {}
"""Each game's PettingZoo registry id."""
ENGINES: dict[str, str] = {}
"""Each game's rule engine class name in its ``rules.py`` (beside its ``OPTIONS`` table)."""
PARALLEL_GAMES: tuple[str, ...] = ()
"""Games whose public module also offers ``parallel_env`` (registered in PettingZoo's parallel registry)."""
UNAVAILABLE_GAMES: dict[str, str] = registry.UNAVAILABLE
"""``BARNYARD_GAMES`` entries (and the game ids they declared) that did not load, each with why; asking for one of
them by name is an error giving that reason."""


class GameLoadWarning(UserWarning):
    """A game did not load and is left out (a ``BARNYARD_GAMES`` entry, or a game the OpenSpiel bridge cannot
    register); the other games are unaffected."""


def register_game(info: GameInfo) -> None:
    """Make a game available everywhere: ``pettingzoo.make`` (its ``env_id``), :func:`make_game`, the trainer,
    the harness, the web page and the OpenSpiel bridge read it from :data:`GAMES` and its descriptor.

    Registering the same descriptor again does nothing; another game under a taken id is a ValueError; a game whose
    package does not import, or whose ``rules`` room or public module is missing, is a
    :class:`~envs.common.registry.GameImportError` (an ImportError), and nothing is registered. Beyond its
    package, nothing of the game is imported here (its rooms load on first use)."""
    global GAMES, PARALLEL_GAMES
    if not registry.add(info):
        return
    GAMES = registry.names()
    VERSIONS[info.name] = info.version
    MODULES[info.name] = info.module_name
    ENV_IDS[info.name] = info.env_id
    ENGINES[info.name] = info.game_class
    register("aec", info.env_id, entry_point=f"{info.public_module}:env")
    if info.parallel:
        PARALLEL_GAMES = (*PARALLEL_GAMES, info.name)
        register("parallel", info.env_id, entry_point=f"{info.public_module}:parallel_env")


def game_info(game: str) -> GameInfo:
    """The descriptor of a registered game id; a ValueError naming the registered ids for an unknown one."""
    return registry.get(game)


def module(game: str) -> Any:
    """The public module (``envs.battle_sheep_v0``: ``env``, ``raw_env``, ``vector_env``) of a game id; a clear
    error for an unknown game."""
    return game_info(game).public()


def game_options(game: str) -> Any:
    """The options table of a game (its ``rules.py``'s ``OPTIONS``, an :class:`envs.common.options.OptionTable`);
    a clear error for an unknown game."""
    return game_info(game).room("rules").OPTIONS


def make_game(game: str, **options: Any) -> Game:
    """The rule engine of ``game`` (a short id of :data:`GAMES`) with ``options``, without an AEC env around it.

    A :class:`ValueError` for an unknown game; a :class:`~envs.common.game.ConfigError` for an option the game does
    not have (also a ``TypeError``) or a value it does not allow, naming what is allowed."""
    info = game_info(game)
    return getattr(info.room("rules"), info.game_class)(**options)  # the engine checks them by its OPTIONS table


def _register_package(package: str) -> None:
    """Register a built-in game (its package's ``INFO``); one that does not import is a broken install: an error."""
    try:
        module_ = importlib.import_module(package)
    except ImportError as error:
        raise ImportError(f"envs.BUILTIN_GAMES names {package!r}, which does not import: {error}") from error
    info = getattr(module_, "INFO", None)
    if isinstance(info, GameInfo):
        register_game(info)


def _register_listed(entry: str) -> None:
    """Import one ``BARNYARD_GAMES`` entry (a module that calls :func:`register_game` itself, or holds an
    ``INFO``) and register its game; if anything in that fails, even ``SystemExit``, leave the entry out with a
    :class:`GameLoadWarning` and remember why (one broken game must not take the others down)."""
    try:
        info = getattr(importlib.import_module(entry), "INFO", None)
        if isinstance(info, GameInfo):
            register_game(info)
    except (Exception, SystemExit) as error:
        reason = f"BARNYARD_GAMES entry {entry!r} did not load: {type(error).__name__}: {error}"
        UNAVAILABLE_GAMES[entry] = reason
        if isinstance(error, GameImportError):
            UNAVAILABLE_GAMES.setdefault(error.game, reason)
        warnings.warn(f"{reason}; it is left out, the other games are unaffected", GameLoadWarning, stacklevel=2)


for _package in BUILTIN_GAMES:
    _register_package(_package)
for _entry in dict.fromkeys(filter(None, (p.strip() for p in os.environ.get("BARNYARD_GAMES", "").split(",")))):
    _register_listed(_entry)


def __getattr__(name: str) -> Any:
    game, _, version = name.rpartition("_v")
    if game in GAMES and version.isdigit():
        info = game_info(game)
        parent = info.public_module.rpartition(".")[0]
        return importlib.import_module(f"{parent}.{name}" if parent else name)  # an old version: DeprecatedEnv
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
