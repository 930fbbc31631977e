"""The game registry: what generic code needs to know about a game, declared once in the game's own folder.

Each game's package (``envs/<game>/__init__.py`` for the built-in games) holds one :class:`GameInfo`, its
*descriptor*: names, where its rooms live, whether it hides information, its training and ``guided:`` defaults, its
OpenSpiel facts and its web board. Generic code (``envs.make_game``, the trainer, the harness, ``barnyard exploit``,
the web page, the OpenSpiel bridge, the benchmarks, the generic tests) reads the descriptor instead of tables keyed
by game name, so a new game is its folder, its public module and one :func:`envs.register_game` call, as
``gymnasium.register`` and ``pyspiel.register_game`` do for theirs.

This module holds the descriptor's type and the registry; :mod:`envs` (``envs/__init__.py``) registers the
built-in games and offers the public calls (``envs.register_game``, ``envs.game_info``).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOMS: tuple[str, ...] = (
    "actions",
    "kernels",
    "rules",
    "observation",
    "render",
    "fast",
    "search",
    "baselines",
    "env",
)
"""The rooms of a game's package (besides ``__init__.py`` and ``RULES.md``), in import order: a room imports only
rooms before it (``docs/adding_a_game.md``). ``actions``: action ids and notation; ``kernels``: the compiled rules
(the state declaration, the row functions, the kernels both engines call); ``rules``: the reference engine (its
Game, state and options); ``observation`` and ``render``: the views (what a seat sees, pictures, snapshots), after
the rules and read through the descriptor (``Game.views``); ``fast``: the batched engine (kernels over rows, the
compiled greedy, its Python face and the bridge to the reference engine); then ``search``, ``baselines``, ``env``."""


@dataclass(frozen=True)
class GameInfo:
    """A game's descriptor: everything generic code reads about it (``docs/adding_a_game.md``)."""

    name: str
    """The game id (``envs.GAMES``), a Python identifier: ``"battle_sheep"``."""
    title: str
    """The name people use: ``"Battle Sheep"``."""
    package: str
    """The importable package holding the rooms (``rules``, ``fast``, ...): ``"envs.battle_sheep"``."""
    version: int = 0
    """The env's version (PettingZoo's convention: a change of observation, action or reward is a new version)."""
    public_module: str = ""
    """The public module with ``env``, ``raw_env``, ``vector_env`` (and ``parallel_env``); default: the package's
    sibling ``<name>_v<version>`` (``"envs.battle_sheep_v0"``)."""
    game_class: str = ""
    """The rule engine's class in ``rules.py``; default: the name in CamelCase + ``Game``."""
    summary: str = ""
    """One line: what makes the game interesting (the README's table)."""
    rules_summary: str = ""
    """The rules in a few sentences for a player who has not read them: the goal, a turn, the end, and how the
    notation names moves (language-model players' prompts, :func:`envs.common.seat_view.seat_text`; ``summary``
    stands in when empty)."""
    parallel: bool = False
    """The public module also offers ``parallel_env`` (simultaneous moves)."""
    hidden_information: bool = False
    """A seat's view differs from the full state (hidden hands, face-down cards)."""
    ppo_defaults: Mapping[str, Any] = field(default_factory=dict)
    """Departures from ``training.config.TrainConfig``'s defaults for PPO (``barnyard train``)."""
    alphazero_defaults: Mapping[str, Any] | None = None
    """Departures for search-guided training (``--algo alphazero``) from ``training.config.ALPHAZERO_DEFAULTS``
    (what every game's search-guided run shares); None: not offered (hidden information)."""
    guided_defaults: tuple[int, int] | None = None
    """``guided:PATH``'s (K root moves kept, simulations a decision) when the spec does not give them; None: a
    ``guided:`` spec must give both."""
    openspiel: tuple[Mapping[str, Any], ...] = ()
    """The OpenSpiel registrations (``envs.openspiel.BridgeSpec`` keyword arguments each, without ``game``); empty:
    one registration of a deterministic perfect-information game, its player counts from the options."""
    web_board: str | None = None
    """The web page's board drawing (``training/play/web/static/js/boards/<web_board>.js``); None: the page's
    generic drawing (the text picture and the legal moves as buttons)."""
    web_test_options: Mapping[str, Any] = field(default_factory=dict)
    """Options the browser tests start this game with (small boards keep them quick)."""
    test_option_sets: tuple[Mapping[str, Any], ...] | None = None
    """The option sets the generic tests play (rules, conformance, OpenSpiel); None: the defaults, then each
    allowed value of each option alone (:func:`envs.common.testing.option_sets`)."""
    spec_symbols: Callable[[Any], Mapping[str, int]] | None = None
    """The symbols the spec page's observation table uses, read from a rule engine (``{"n": game.num_players}``
    when None)."""

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"a game id must be a Python identifier, got {self.name!r}")
        if not self.public_module:
            parent = self.package.rpartition(".")[0]
            module = f"{self.name}_v{self.version}"
            object.__setattr__(self, "public_module", f"{parent}.{module}" if parent else module)
        if not self.game_class:
            object.__setattr__(self, "game_class", "".join(p.title() for p in self.name.split("_")) + "Game")

    @property
    def env_id(self) -> str:
        """The PettingZoo registry id: ``"barnyard/<name>-v<version>"``."""
        return f"barnyard/{self.name}-v{self.version}"

    @property
    def module_name(self) -> str:
        """The public module's own name (``"battle_sheep_v0"``): the AEC env's ``metadata["name"]``."""
        return self.public_module.rpartition(".")[2]

    @property
    def folder(self) -> Path:
        """The folder of the game's package (``envs/battle_sheep`` for a built-in game), found without importing
        it: where its rooms, ``RULES.md`` and the spec page's generated options blocks live."""
        spec = importlib.util.find_spec(self.package)
        if spec is None or spec.origin is None:
            raise ModuleNotFoundError(f"game {self.name!r}: no package {self.package!r} on the import path")
        return Path(spec.origin).resolve().parent

    def room(self, room: str) -> ModuleType:
        """The package's module ``room`` (``info.room("rules")``), imported."""
        return importlib.import_module(f"{self.package}.{room}")

    def public(self) -> ModuleType:
        """The public module, imported."""
        return importlib.import_module(self.public_module)


_REGISTRY: dict[str, GameInfo] = {}

UNAVAILABLE: dict[str, str] = {}
"""``BARNYARD_GAMES`` entries that did not load, each with why (by entry, and by game id where the entry declared
one): asking for one by name gives that reason (:func:`get`)."""


class GameImportError(ImportError):
    """A descriptor whose package does not import, or whose rules or public module is not there: refused at
    registration, so that a broken game is never offered beside the others."""

    def __init__(self, game: str, message: str):
        super().__init__(message)
        self.game = game
        """The id the descriptor declared."""


def check_importable(info: GameInfo) -> None:
    """Raise :class:`GameImportError` unless ``info``'s package imports and its ``rules`` room and public module
    exist (found, not imported: the rooms load on first use)."""
    try:
        importlib.import_module(info.package)
    except Exception as error:
        raise GameImportError(
            info.name,
            f"game {info.name!r}: its package {info.package!r} does not import: {type(error).__name__}: {error}",
        ) from error
    for module, what in ((f"{info.package}.rules", "rules room"), (info.public_module, "public module")):
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise GameImportError(info.name, f"game {info.name!r}: its {what} {module!r} is not on the import path")


def add(info: GameInfo) -> bool:
    """Add ``info`` to the registry; False when the same descriptor is there already (a second import), a
    ValueError when another game has the id, a :class:`GameImportError` when the game does not import."""
    if not isinstance(info, GameInfo):
        raise TypeError(f"register_game takes an envs.GameInfo, got {type(info).__name__}")
    old = _REGISTRY.get(info.name)
    if old is not None:
        if old == info:
            return False
        raise ValueError(f"a game with id {info.name!r} is registered already (from {old.package})")
    check_importable(info)
    _REGISTRY[info.name] = info
    UNAVAILABLE.pop(info.name, None)
    return True


def get(game: str) -> GameInfo:
    """The descriptor of a registered game id; a ValueError naming the ids for an unknown one, and why for a game
    that did not load (:data:`UNAVAILABLE`)."""
    info = _REGISTRY.get(game) if isinstance(game, str) else None
    if info is None:
        if isinstance(game, str) and game in UNAVAILABLE:
            raise ValueError(f"game {game!r} is not available: {UNAVAILABLE[game]}; available: {', '.join(_REGISTRY)}")
        raise ValueError(f"unknown game {game!r}; available: {', '.join(_REGISTRY)}")
    return info


def names() -> tuple[str, ...]:
    """Every registered game id, in registration order."""
    return tuple(_REGISTRY)
