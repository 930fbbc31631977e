"""The Barnyard games as OpenSpiel games (the optional extra ``openspiel``: ``pip install "barnyard-rl[openspiel]"``).

Importing this module registers every game with ``pyspiel.register_game`` as a Python game, so that OpenSpiel's
algorithms (MCTS, CFR and MCCFR, exploitability, ...) and Shimmy's ``OpenSpielCompatibilityV0`` run on them::

    import envs.openspiel  # registers barnyard_battle_sheep, barnyard_bestiarium, ...
    import pyspiel
    game = pyspiel.load_game("barnyard_boaring", {"num_players": 2})

==================  ================  ==================  ========================================================
OpenSpiel name      dynamics          chance              information
==================  ================  ==================  ========================================================
barnyard_           sequential        deterministic       perfect
battle_sheep
barnyard_           sequential        deterministic       perfect
bestiarium
barnyard_           sequential        explicit: the tile  perfect
beasty_borders                        shuffle, each D8
                                      roll (8 outcomes)
barnyard_boaring    simultaneous      explicit: every     imperfect (hands, face-down bids)
                    bids, sequential  shuffle, card by
                    eat decisions     card
==================  ================  ==================  ========================================================

The games run on the Barnyard engines (:class:`envs.common.game.Game`): no rule is written twice. Chance becomes
explicit through :class:`envs.openspiel.chance.ScriptedRng`: every draw an engine makes (a die roll, a shuffle)
is one or more uniform chance nodes, with the same distribution as the engine's own generator. A player action
that needs chance (a roll after a placement) is held while its chance nodes are resolved, then the engine
applies it with those outcomes; the state in between is a chance node.

Game parameters are the engine's options (``pyspiel.load_game("barnyard_boaring", {"num_players": 3, "reward":
"score"})``), checked by the engine (:class:`~envs.common.game.ConfigError` for a bad value). Actions are the
engine's action ids, the ones the PettingZoo envs use. Boaring's bid phase is a simultaneous node (each player's
legal actions: the values in its hand; the engine commits them in its own order and reveals them together); an
eat decision is an ordinary single-player node.

Observations, through ``make_py_observer``: ``observation_tensor(p)`` is the engine's observation of seat ``p``
(the PettingZoo env's ``observation``, flattened), ``observation_string(p)`` the text picture seat ``p`` may see.
``information_state_string(p)``: in the perfect-information games the history of actions; in Boaring (perfect
recall) ``p``'s own record of every completed transition: what ``p`` saw of each action
(:meth:`~envs.common.game.Game.action_to_str_for`, so another seat's face-down card is only "lays a food card
face down") and ``p``'s observation after it. Information-state tensors are not provided. Boaring's
``IIGObservationType(private_info=ALL_PLAYERS)`` observer gives the privileged global state
(:meth:`~envs.boaring.rules.BoaringGame.global_state`).

Structs (OpenSpiel 2's ``SpielStruct`` API, through the Python-game hooks ``_to_struct`` etc.): ``to_struct()`` /
``to_json()`` / ``to_dict()`` are the world state, hidden information included, as OpenSpiel's own games give it
(gin_rummy's holds both hands): :func:`envs.common.seat_view.spectator_view`; ``to_observation_struct(p)`` is what
player ``p`` may know, :func:`envs.common.seat_view.seat_view`. Both carry the moves OpenSpiel takes at the node
(``legal_moves``, numbered from 1, with notation and action id; none at a chance node) and ``"openspiel"``: the
current player id, the move number and the chance draw. ``action_to_struct(p, a)`` is ``{"player", "action",
"notation"}``; ``struct_to_actions`` reads it back (or ``{"move": notation or number}``, as a language-model player
names a move), so ``apply_action_struct`` plays it. Before the set-up's chance nodes are done a struct says
``"setting_up": true``.

Serialisation: ``state.serialize()`` / ``game.deserialize_state(text)``, ``pyspiel.serialize_game_and_state`` and
``pickle`` carry the state as its exact JSON snapshot (:meth:`~envs.common.game.Game.state_to_json`, with the move
in progress at a chance node), checked when read back. OpenSpiel writes a Python state's attributes as a pickle
(the ``__dict__=`` field); a Barnyard state's holds that JSON text only, and a string whose field asks pickle for
any Python object (code, or an older Barnyard's pickled state) is refused with a :class:`BridgeError` before
anything in it runs. Refusals (illegal actions too) are :class:`BridgeError`: a ``pyspiel.SpielError`` and a
``ValueError``. Returns are the engine's terminal rewards
(zero-sum; ``reward="score"`` in Boaring gives score differences). A game cut off at the engine's ply cap
(Bestiarium) ends with its returns (zeros: a draw).
"""

from __future__ import annotations

import copy
import importlib
import json
import reprlib
import sys
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'envs.openspiel needs OpenSpiel: pip install "barnyard-rl[openspiel]" (the open_spiel wheel)'
    ) from error

import envs
from envs.common.game import ConfigError, Game
from envs.common.seat_view import ReplyError, parse_reply, seat_view, spectator_view
from envs.openspiel.chance import NeedChance, ScriptedRng

__all__ = ["GAME_NAMES", "BridgeError", "load_game", "register", "engine_of", "specs_of"]


class BridgeError(pyspiel.SpielError, ValueError):
    """A call the bridge refuses: an illegal action, a player who is not in the game, a state string it will not
    load. A ``pyspiel.SpielError``, which OpenSpiel's clients catch (RLlib's ``OpenSpielEnv``, OpenSpiel's own C++
    games raise it), and a ``ValueError``, which Barnyard raises for bad input everywhere else."""


# ----- what each game is, in OpenSpiel's terms (each game's descriptor: GameInfo.openspiel) ----------------------
@dataclass(frozen=True)
class BridgeSpec:
    """How one Barnyard game maps onto OpenSpiel's GameType."""

    game: str
    """The Barnyard game id (``envs.GAMES``)."""
    long_name: str
    min_players: int
    max_players: int
    explicit_chance: bool = False
    """Explicit stochastic (the engine draws chance) or deterministic."""
    max_chance_outcomes: int = 0
    """The most outcomes of one chance node (the largest shuffle or die)."""
    chance_nodes_bound: Callable[[Game], int] = lambda engine: 0
    """An upper bound on the chance nodes of one game, for ``max_game_length``."""
    simultaneous_node: Callable[[Game, Any], bool] | None = None
    """Simultaneous games: whether an engine state is a simultaneous node."""
    seat_actions: Callable[[Game, Any, int], list[int]] | None = None
    """Simultaneous games: a seat's legal actions at a simultaneous node."""
    unsupported: Callable[[dict[str, Any]], str | None] = lambda options: None
    """A reason why these options cannot be offered, or None."""
    utility: Callable[[dict[str, Any]], tuple[float, float]] = lambda options: (-1.0, 1.0)
    none_options: tuple[tuple[str, Any], ...] = ()
    """Engine options whose default is ``None``, with the value that stands for ``None`` in OpenSpiel's typed
    parameters (Battle Sheep's ``canvas_radius``: 0, the engine's default radius for the player count)."""
    variant: str = ""
    """A second registration of the same engine (``"turn_based"``: Boaring's bids one seat at a time)."""
    info: Any = None
    """Imperfect-information games: the module with ``record``, ``string``, ``tensor``, ``tensor_size``,
    ``resample`` (:mod:`envs.openspiel.boaring`)."""

    @property
    def key(self) -> str:
        """The bridge's name of the game (``GAME_NAMES``' key): the Barnyard id, plus ``_<variant>``."""
        return f"{self.game}_{self.variant}" if self.variant else self.game

    @property
    def short_name(self) -> str:
        """OpenSpiel's name of the game."""
        return f"barnyard_{self.key}"


def _player_range(game: str) -> tuple[int, int]:
    """The player counts a game allows: its ``num_players`` option's range, else its one player count."""
    for option in envs.game_options(game):
        if option.name == "num_players":
            if option.choices is not None:
                return min(option.choices), max(option.choices)
            return int(option.low), int(option.high)
    n = envs.make_game(game).num_players
    return n, n


def specs_of(game: str) -> list[BridgeSpec]:
    """The OpenSpiel registrations of a Barnyard game, from its descriptor (``GameInfo.openspiel``: BridgeSpec
    keyword arguments each; none: one deterministic perfect-information registration named ``Barnyard <title>``,
    its player counts from the options)."""
    info = envs.game_info(game)
    out = []
    for entry in info.openspiel or ({},):
        kwargs = dict(entry)
        kwargs.setdefault("long_name", f"Barnyard {info.title}")
        if "min_players" not in kwargs or "max_players" not in kwargs:
            low, high = _player_range(game)
            kwargs.setdefault("min_players", low)
            kwargs.setdefault("max_players", high)
        if isinstance(kwargs.get("info"), str):
            kwargs["info"] = importlib.import_module(kwargs["info"])
        out.append(BridgeSpec(game, **kwargs))
    return out


SPECS: dict[str, BridgeSpec] = {}
"""Every registered game (:func:`register` adds the games registered with ``envs`` since): one per Barnyard game,
and Boaring's turn-based form (for sequential algorithms such as IS-MCTS)."""

GAME_NAMES: dict[str, str] = {}
"""Barnyard game id (or ``boaring_turn_based``) -> OpenSpiel game name."""


MAX_FLAT_JOINT_ACTIONS = 1_000_000
"""The most flat joint actions ``legal_actions()`` lists at a simultaneous node (2-6 players: at most 10^6)."""


def _engine_class(game: str) -> type[Game]:
    return envs.module(game).raw_env.game_class


def _default_options(spec: BridgeSpec) -> dict[str, Any]:
    """Every engine option as an OpenSpiel parameter with its default, from the game's options table (``OPTIONS``
    in ``envs/<game>/rules.py``; ``None`` defaults as ``spec.none_options`` says). An option that OpenSpiel cannot
    carry is an error here, so that every option of the spec page stays passable."""
    stand_ins = dict(spec.none_options)
    out = {}
    for option in envs.game_options(spec.game):
        if option.default is None and option.name in stand_ins:
            out[option.name] = stand_ins[option.name]
        elif isinstance(option.default, (bool, int, float, str)):
            out[option.name] = option.default
        else:
            raise TypeError(
                f"{spec.short_name}: engine option {option.name}={option.default!r} has no OpenSpiel parameter type; "
                "give it a stand-in in BridgeSpec.none_options"
            )
    return out


_ENGINES: dict[tuple[str, str], Game] = {}


def _engine(game: str, options_json: str) -> Game:
    """One shared engine per (game, options): engines are immutable tables, states are separate values."""
    engine = _ENGINES.get((game, options_json))
    if engine is None:
        engine = _ENGINES[(game, options_json)] = envs.make_game(game, **json.loads(options_json))
    return engine


# ----- state strings: the JSON snapshot, and nothing that pickle could turn into code ------------------------
SNAPSHOT_FORMAT = "barnyard-openspiel-state/1"
"""The ``format`` field of a state's JSON snapshot (see :meth:`BarnyardState._snapshot_json`)."""
SNAPSHOT_KEY = "snapshot"
"""The one name in the ``__dict__=`` field of a Barnyard state string: its value is the JSON snapshot (text)."""
_SNAPSHOT_FIELDS = frozenset({"format", "game", "options", "history", "position", "pending", "joint", "draws", "log"})


class _Position:
    """Everything a :class:`BarnyardState` is besides the history OpenSpiel keeps in C++: the engine state and the
    transition in progress. One object, so that the state has one attribute of its own (which no state string can
    set, see :meth:`BarnyardState.__setattr__`) and :meth:`BarnyardState.clone` copies it with ``engine.clone``."""

    __slots__ = ("key", "engine", "state", "pending", "joint", "draws", "need", "log", "snapshot")

    def __init__(self, key: str, engine: Game, state: Any = None):
        self.key = key
        """The bridge's name of the game (``SPECS``' key)."""
        self.engine = engine
        self.state = state
        """The engine state (None while the initial set-up's chance nodes are being resolved)."""
        self.pending: tuple[int, ...] | None = None
        """Player actions waiting for their chance outcomes (None: the initial set-up, or nothing pending)."""
        self.joint = False
        """Whether ``pending`` is one action per seat (a simultaneous node's)."""
        self.draws: list[int] = []
        """The chance outcomes drawn so far for the pending transition."""
        self.need: tuple[int, str, int] | None = None
        """The current chance node: (outcomes, what is drawn, offset of integer draws); None elsewhere."""
        self.log: tuple[tuple[int, ...], ...] = ()
        """Imperfect-information games: the public record of the game (``spec.info.record``)."""
        self.snapshot: tuple[int, str] | None = None
        """The JSON snapshot of this position and the move number it was taken at; None once the position
        changes (OpenSpiel's C++ reads ``__dict__`` twice for each ``Clone`` or ``Serialize``)."""

    def __deepcopy__(self, memo: dict) -> _Position:
        twin = _Position(self.key, self.engine, None if self.state is None else self.engine.clone(self.state))
        twin.pending, twin.joint, twin.draws, twin.need, twin.log = (
            self.pending,
            self.joint,
            list(self.draws),
            self.need,
            self.log,
        )
        return twin

    def __reduce__(self) -> Any:
        raise TypeError("a Barnyard position is never pickled: its state travels as its JSON snapshot")


_RESTORING = threading.local()
"""Per thread, ``mark``: where Python stood (frame, instruction) when a Barnyard ``new_initial_state`` was last
called; cleared when a state is restored or cloned, or when pickle next loads a global. See
:func:`_refuse_pickled_objects`."""
_LAST_SNAPSHOT = threading.local()
"""Per thread, ``source``: the position whose JSON snapshot a state's ``__dict__`` gave out last. OpenSpiel's C++
``Clone`` hands that very str object straight back; while the position still holds it (it has not changed), the
restore copies the position instead of parsing the text. Identity, not equality: text from outside is parsed."""
_CLONING = threading.local()
"""Per thread, ``source``: the state whose :meth:`BarnyardState.clone` is running (its ``__dict__`` then hands
OpenSpiel the live position instead of the JSON snapshot)."""


def _frame_mark(frame: Any) -> tuple[int, Any, int]:
    """A Python frame and the instruction it is at (the call into C++ it is waiting on)."""
    return (0, None, -1) if frame is None else (id(frame), frame.f_code, frame.f_lasti)


def _refuse_pickled_objects(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook (``sys.addaudithook``): refuse every global that ``pickle`` loads while OpenSpiel restores a
    Barnyard state from a string.

    ``pyspiel.deserialize_game_and_state`` and ``game.deserialize_state`` end in OpenSpiel's C++
    ``PyState::Deserialize``, which passes the string's ``__dict__=`` field to ``pickle.loads`` before any code of
    the game sees it; a crafted field runs any code it names (``os.system``). An honest Barnyard string holds one
    dict with one str (the JSON snapshot), which loads no global, so any global asked for there is refused. The
    restore is recognised by what precedes it: OpenSpiel's C++ calls ``new_initial_state`` (which leaves its mark)
    and then ``pickle.loads`` itself, so pickle's audit event finds the Python frame that called into C++ still at
    the same instruction. Unpickling called from Python code (from any frame, C++ or not around it) sees another
    frame or instruction, clears the mark and is left alone."""
    if event != "pickle.find_class":
        return
    mark = getattr(_RESTORING, "mark", None)
    if mark is None:
        return
    _RESTORING.mark = None
    if _frame_mark(sys._getframe().f_back) != mark:
        return
    module, name = args
    raise BridgeError(
        f"refused: this state string's __dict__= field asks pickle for {module}.{name}. A Barnyard state string "
        f"carries the state's JSON snapshot only ({{{SNAPSHOT_KEY!r}: '<json>'}}) and the bridge loads no Python "
        "object from one; this string is crafted, or from an older Barnyard that pickled its states"
    )


sys.addaudithook(_refuse_pickled_objects)


def _state_from_string(text: str) -> BarnyardState:
    """``pickle``'s way back to a state (:meth:`BarnyardState.__reduce__`): OpenSpiel's game-and-state string."""
    return pyspiel.deserialize_game_and_state(text)[1]


# ----- the OpenSpiel game and state ----------------------------------------------------------------------------
class BarnyardGame(pyspiel.Game):
    """A Barnyard engine as an OpenSpiel game (subclassed once per game by :func:`register`)."""

    spec: BridgeSpec
    game_type: pyspiel.GameType

    def __init__(self, params: dict[str, Any] | None = None):
        options = {**_default_options(self.spec), **dict(params or {})}
        reason = self.spec.unsupported(options)
        if reason:
            raise ConfigError(reason)
        stand_ins = dict(self.spec.none_options)
        engine = _engine(
            self.spec.game,
            json.dumps(
                {k: (None if k in stand_ins and v == stand_ins[k] else v) for k, v in options.items()}, sort_keys=True
            ),
        )
        # the game's parameters name the value the engine chose (canvas_radius=0 -> 13 for 3 players), and the
        # engine is shared under that name too
        options.update({k: engine.options()[k] for k in stand_ins})
        _ENGINES.setdefault((self.spec.game, json.dumps(options, sort_keys=True)), engine)
        low, high = self.spec.utility(options)
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions,
            max_chance_outcomes=self.spec.max_chance_outcomes,
            num_players=engine.num_players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0,
            max_game_length=engine.max_game_length + self.spec.chance_nodes_bound(engine),
        )
        super().__init__(self.game_type, info, options)

    @property
    def engine(self) -> Game:
        """The Barnyard engine for this game's parameters (shared; also right for copies that OpenSpiel or
        ``copy``/``pickle`` make without calling ``__init__``)."""
        return _engine(self.spec.game, json.dumps(dict(self.get_parameters()), sort_keys=True))

    def __deepcopy__(self, memo: dict) -> BarnyardGame:
        return self  # games are immutable (OpenSpiel shares them too)

    def new_initial_state(self) -> BarnyardState:
        """The start of a game: chance nodes first where the engine shuffles or rolls. Leaves the mark that
        :func:`_refuse_pickled_objects` reads (OpenSpiel's C++ restores a state string onto a new initial state)."""
        state = BarnyardState(self)
        _RESTORING.mark = _frame_mark(sys._getframe().f_back)
        return state

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> BarnyardObserver:
        """An observer (OpenSpiel's PyObserver interface) for ``iig_obs_type``."""
        return BarnyardObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class BarnyardState(pyspiel.State):
    """An OpenSpiel state over an engine state (see the module docstring).

    OpenSpiel's C++ reads and writes a Python state's ``__dict__``: ``Serialize`` pickles it into the
    ``__dict__=`` field of a state string, ``Deserialize`` and ``Clone`` set each of its keys back as an attribute.
    Here ``__dict__`` is the JSON snapshot alone (``{"snapshot": "<json>"}``, no Python object) and
    ``__setattr__`` takes that key only, restoring the state from it after checking it, besides the state's own
    ``_position`` (an object that no string can build); every other attribute is refused, so a state string can
    neither carry code nor plant attributes."""

    def __init__(self, game: BarnyardGame):
        super().__init__(game)
        self._position = _Position(game.spec.key, game.engine)
        self._advance()

    # ----- what OpenSpiel's C++ copies: the JSON snapshot -----------------------------------------------------
    @property
    def __dict__(self) -> dict[str, Any]:
        """The Python side of this state as OpenSpiel's C++ ``Serialize`` and ``Clone`` read it: the JSON
        snapshot; the live position while :meth:`clone` runs (copied by ``engine.clone``, not through JSON)."""
        if getattr(_CLONING, "source", None) is self:
            return {"_position": self._position}
        position = self._position
        if position.snapshot is None or position.snapshot[0] != self.move_number():
            position.snapshot = (self.move_number(), self._snapshot_json())
        _LAST_SNAPSHOT.source = position
        return {SNAPSHOT_KEY: position.snapshot[1]}

    def __setattr__(self, name: str, value: Any) -> None:
        """``_position`` (this module's own object: no state string can build one) or ``snapshot`` (the JSON
        snapshot of a state string, checked and restored); nothing else."""
        if name == "_position" and isinstance(value, _Position):
            super().__setattr__(name, value)
        elif name == SNAPSHOT_KEY:
            self._restore(value)
        else:
            raise BridgeError(
                f"refused: attribute {name!r} of a Barnyard state; a state string's __dict__= field holds "
                f"{SNAPSHOT_KEY!r} (the JSON snapshot) only"
            )

    def _snapshot_json(self) -> str:
        """The exact JSON snapshot of this state: the engine state (:meth:`~envs.common.game.Game.state_to_json`),
        the transition in progress at a chance node, the public log (Boaring) and, for checking, the game, its
        options and the history."""
        position = self._position
        return json.dumps(
            {
                "format": SNAPSHOT_FORMAT,
                "game": self._spec.short_name,
                "options": position.engine.options(),
                "history": [[int(step.player), int(step.action)] for step in self.full_history()],
                "position": None if position.state is None else position.engine.state_to_json(position.state),
                "pending": None if position.pending is None else list(position.pending),
                "joint": position.joint,
                "draws": list(position.draws),
                "log": [list(entry) for entry in position.log],
            },
            separators=(",", ":"),
        )

    def _restore(self, text: Any) -> None:
        """Become the state that ``text`` (a JSON snapshot) describes, or raise a :class:`BridgeError` saying why
        and change nothing."""
        _RESTORING.mark = None
        before = self._position
        source = getattr(_LAST_SNAPSHOT, "source", None)
        just_read = source is not None and source.snapshot is not None and source.snapshot[1] is text
        if just_read and source.engine is self.engine:  # OpenSpiel's C++ Clone: the text it just read, unchanged
            self._position = copy.deepcopy(source)
            return
        try:
            self._position = self._position_from_snapshot(text)
            if self._position.state is None or self._position.pending is not None:
                self._advance()  # replays the pending transition: checks its actions and draws, finds the chance node
        except BridgeError:
            self._position = before
            raise
        except (ValueError, TypeError, KeyError, IndexError, RuntimeError) as error:  # SnapshotError, illegal ...
            self._position = before
            raise BridgeError(f"refused: this state string's snapshot is damaged: {error}") from None

    def _position_from_snapshot(self, text: Any) -> _Position:
        """The position a JSON snapshot describes, every field checked (the engine checks its own state)."""
        spec, engine = self._spec, self.engine
        if not isinstance(text, str):
            raise BridgeError(
                f"refused: a state string's {SNAPSHOT_KEY!r} is the JSON snapshot (text), not {type(text).__name__}"
            )
        data = json.loads(text)
        if not isinstance(data, dict) or set(data) != _SNAPSHOT_FIELDS or data["format"] != SNAPSHOT_FORMAT:
            raise BridgeError(f"refused: not a Barnyard state snapshot ({SNAPSHOT_FORMAT})")
        if data["game"] != spec.short_name or data["options"] != json.loads(json.dumps(engine.options())):
            raise BridgeError(
                f"refused: the snapshot is of {reprlib.repr(data['game'])} with {reprlib.repr(data['options'])}, "
                "not of this game "
                f"({spec.short_name} with {engine.options()!r})"
            )
        history = [[int(step.player), int(step.action)] for step in self.full_history()]
        if history and data["history"] != history:  # empty while OpenSpiel's Clone runs (it copies it after)
            raise BridgeError("refused: the state string's history is not the one its snapshot was taken at")

        def ints(value: Any, what: str) -> list[int]:
            if not isinstance(value, list) or any(type(v) is not int for v in value):
                raise BridgeError(
                    f"refused: the snapshot's {what} must be a list of integers, not {reprlib.repr(value)}"
                )
            return value

        position = _Position(spec.key, engine)
        if data["position"] is not None:
            position.state = engine.state_from_json(data["position"])
        if data["pending"] is not None:
            if position.state is None:
                raise BridgeError("refused: the snapshot has pending actions before the game is set up")
            position.pending = tuple(ints(data["pending"], "pending actions"))
            if not isinstance(data["joint"], bool) or len(position.pending) != (
                engine.num_players if data["joint"] else 1
            ):
                raise BridgeError("refused: the snapshot's pending actions do not fit its joint flag")
            position.joint = data["joint"]
        elif data["joint"] is not False or (position.state is not None and data["draws"]):
            raise BridgeError("refused: the snapshot has chance outcomes or a joint flag but no pending actions")
        position.draws = list(ints(data["draws"], "chance outcomes"))
        if not isinstance(data["log"], list) or (spec.info is None and data["log"]):
            raise BridgeError("refused: the snapshot's public log does not fit this game")
        position.log = tuple(tuple(ints(entry, "log entries")) for entry in data["log"])
        return position

    def clone(self) -> BarnyardState:
        """OpenSpiel's copy (history included), with the position copied by ``engine.clone`` instead of through
        the JSON snapshot that OpenSpiel's C++ would otherwise read."""
        outer = getattr(_CLONING, "source", None)
        _CLONING.source = self
        try:
            return super().clone()
        finally:
            _CLONING.source = outer
            _RESTORING.mark = None  # left by the copy's new_initial_state: nothing is being restored

    def child(self, action: int) -> BarnyardState:
        """A copy with ``action`` applied (OpenSpiel's ``child``, through :meth:`clone`)."""
        child = self.clone()
        child.apply_action(action)
        return child

    def __copy__(self) -> BarnyardState:
        return self.clone()

    def __deepcopy__(self, memo: dict) -> BarnyardState:
        return self.clone()

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """``pickle`` carries OpenSpiel's game-and-state string (the JSON snapshot), read back through
        ``pyspiel.deserialize_game_and_state``."""
        return (_state_from_string, (pyspiel.serialize_game_and_state(self.get_game(), self),))

    # ----- engine plumbing ---------------------------------------------------------------------------------
    @property
    def _spec(self) -> BridgeSpec:
        return SPECS[self._position.key]

    @property
    def engine(self) -> Game:
        """The Barnyard engine of this game."""
        return self._position.engine

    @property
    def engine_state(self) -> Any:
        """The engine state (None while the initial set-up's chance nodes are being resolved). Read-only use."""
        return self._position.state

    def _advance(self) -> None:
        """Run the pending transition with the outcomes drawn so far: finish it, or stop at its next chance node."""
        position, spec = self._position, self._spec
        position.snapshot = None
        engine, before, pending = position.engine, position.state, position.pending
        rng = ScriptedRng(position.draws, strict_deterministic=not spec.explicit_chance)
        try:
            if before is None:
                after = engine.initial_state(rng)
            else:
                after = engine.clone(before)
                for _ in range(len(pending or ())):
                    action = pending[engine.current_player(after)] if position.joint else pending[0]
                    engine.apply(after, action, rng)
        except NeedChance as need:
            if need.num_outcomes > spec.max_chance_outcomes:
                raise RuntimeError(
                    f"{spec.short_name}: a chance node with {need.num_outcomes} outcomes; "
                    f"the game declares at most {spec.max_chance_outcomes}"
                ) from None
            position.need = (need.num_outcomes, need.label, need.offset)
            return
        if not rng.all_used():
            raise RuntimeError(
                f"{spec.short_name}: the transition used {rng.used} of {len(position.draws)} chance outcomes"
            )
        if spec.info is not None:
            position.log = spec.info.record(before, after, pending or (), position.log)
        position.state = after
        position.pending, position.joint, position.draws, position.need = None, False, [], None

    def _finished(self) -> bool:
        state = self._position.state
        return (
            self._position.need is None
            and state is not None
            and (self.engine.is_terminal(state) or self.engine.is_truncated(state))
        )

    def _simultaneous(self) -> bool:
        """Whether this is a simultaneous node (every seat chooses; the engine commits them in its own order)."""
        return (
            self._spec.simultaneous_node is not None
            and self._position.need is None
            and not self._finished()
            and self._spec.simultaneous_node(self.engine, self._position.state)
        )

    def _check_player(self, player: int) -> int:
        """``player`` as an int, or a :class:`BridgeError` naming the players of this game."""
        n = self.engine.num_players
        if not isinstance(player, (int, np.integer)) or not 0 <= player < n:
            raise BridgeError(f"player {player!r} is not a player of this {n}-player game; players are 0..{n - 1}")
        return int(player)

    def _joint_choices(self) -> list[list[int]]:
        """At a simultaneous node: each seat's legal actions (empty for a seat with none)."""
        return [self._legal_actions(p) for p in range(self.engine.num_players)]

    def _decode_flat(self, flat: int) -> list[int]:
        """A flat joint action -> one action per seat, OpenSpiel's numbering: seat 0 is the least significant
        digit, each seat's digit indexes its legal actions, a seat with none takes 0 and no digit."""
        choices = self._joint_choices()
        total = int(np.prod([len(c) for c in choices if c], dtype=np.int64))
        if not 0 <= flat < total:
            raise BridgeError(f"flat joint action {flat} is not in [0, {total}) at this simultaneous node")
        actions = []
        for legal in choices:
            if legal:
                actions.append(legal[flat % len(legal)])
                flat //= len(legal)
            else:
                actions.append(0)
        return actions

    # ----- OpenSpiel's API -----------------------------------------------------------------------------------
    def current_player(self) -> int:
        """CHANCE at a chance node, TERMINAL at the end, SIMULTANEOUS at a bid, else the seat to move."""
        if self._position.need is not None:
            return pyspiel.PlayerId.CHANCE
        if self._finished():
            return pyspiel.PlayerId.TERMINAL
        if self._simultaneous():
            return pyspiel.PlayerId.SIMULTANEOUS
        return self.engine.current_player(self._position.state)

    def _legal_actions(self, player: int) -> list[int]:
        """``player``'s legal actions, ascending (empty for a player who does not act here). At a simultaneous
        node, ``legal_actions()`` (the SIMULTANEOUS player) lists the flat joint actions, as OpenSpiel does."""
        if player == pyspiel.PlayerId.SIMULTANEOUS:
            if not self._simultaneous():
                return []
            total = int(np.prod([len(c) for c in self._joint_choices() if c], dtype=np.int64))
            if total > MAX_FLAT_JOINT_ACTIONS:
                raise BridgeError(
                    f"{total} joint actions at this simultaneous node are too many to list; use "
                    "legal_actions(p) for each player p and apply_actions"
                )
            return list(range(total))
        if player == pyspiel.PlayerId.TERMINAL:
            return []
        player = self._check_player(player)
        if self._position.need is not None or self._finished():
            return []
        state = self._position.state
        if self._simultaneous():
            return self._spec.seat_actions(self.engine, state, player)
        return self.engine.legal_actions(state) if player == self.engine.current_player(state) else []

    def legal_actions(self, player: int | None = None) -> list[int]:
        """OpenSpiel's ``legal_actions``, with a clear error for a player id that is not in the game."""
        if player is None:
            return super().legal_actions()
        if player not in (pyspiel.PlayerId.SIMULTANEOUS, pyspiel.PlayerId.CHANCE, pyspiel.PlayerId.TERMINAL):
            self._check_player(player)
        return super().legal_actions(player)

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        """OpenSpiel's mask of ``player``'s legal actions (the current player's by default). A simultaneous node
        has no single mask (its flat joint actions are not action ids): ask per player there."""
        if player is None:
            player = self.current_player()
        if player == pyspiel.PlayerId.SIMULTANEOUS:
            raise BridgeError(
                "a simultaneous node has no single action mask: use legal_actions_mask(p) for each "
                "player p (flat joint actions are not action ids)"
            )
        if player not in (pyspiel.PlayerId.CHANCE, pyspiel.PlayerId.TERMINAL):
            self._check_player(player)
        return super().legal_actions_mask(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The current chance node's outcomes, each equally likely."""
        if self._position.need is None:
            raise BridgeError("not a chance node")
        k = self._position.need[0]
        return [(i, 1.0 / k) for i in range(k)]

    def _apply_action(self, action: int) -> None:
        """A chance outcome, a flat joint action at a simultaneous node, or the move of the player to act
        (validated before anything changes)."""
        if self._position.need is not None:
            if not 0 <= action < self._position.need[0]:
                raise BridgeError(f"chance outcome {action} is not in [0, {self._position.need[0]})")
            self._position.draws.append(int(action))
            self._advance()
            return
        if self._finished():
            raise BridgeError(f"action {action}: the game is over")
        if self._simultaneous():
            self._apply_actions(self._decode_flat(int(action)))
            return
        self._check_legal(int(action), self.engine.current_player(self._position.state))
        self._position.pending, self._position.joint, self._position.draws = (int(action),), False, []
        self._advance()

    def _apply_actions(self, actions: list[int]) -> None:
        """One action per seat: at a simultaneous node each seat's choice (the engine commits them in its own
        order); at a node where one seat acts (a simultaneous game's eat decision, which OpenSpiel's
        ``rl_environment`` also applies this way) that seat's action. A seat with no legal action passes 0
        (OpenSpiel's convention; ``INVALID_ACTION`` is accepted too)."""
        n = self.engine.num_players
        if len(actions) != n:
            raise BridgeError(f"{len(actions)} actions for {n} players")
        if self._position.need is not None:
            raise BridgeError("a chance node: apply its outcome with apply_action")
        if self._finished():
            raise BridgeError("the game is over")
        actions = [int(a) for a in actions]
        for seat, action in enumerate(actions):
            legal = self._legal_actions(seat)
            if legal and action not in legal:
                raise BridgeError(f"action {action} is not legal for player {seat} here; legal: {legal}")
            if not legal and action not in (0, pyspiel.INVALID_ACTION):
                raise BridgeError(f"player {seat} has no legal action here and must pass 0, not {action}")
        if self._simultaneous():
            self._position.pending, self._position.joint = tuple(actions), True
        else:
            self._position.pending, self._position.joint = (
                (actions[self.engine.current_player(self._position.state)],),
                False,
            )
        self._position.draws = []
        self._advance()

    def _check_legal(self, action: int, seat: int) -> None:
        legal = self._legal_actions(seat)
        if action not in legal:
            raise BridgeError(f"action {action} is not legal for player {seat} here; legal: {legal}")

    def _action_to_string(self, player: int, action: int) -> str:
        """The engine's notation of ``action``; chance outcomes say what was drawn; a flat joint action lists
        each seat's choice."""
        if player == pyspiel.PlayerId.CHANCE:
            if self._position.need is not None:
                return NeedChance(self._position.need[0], self._position.need[1], self._position.need[2]).describe(
                    action
                )
            return f"chance outcome {action}"
        state = self._position.state
        if state is None:
            return f"action {action}"
        if player == pyspiel.PlayerId.SIMULTANEOUS and self._simultaneous():
            return "[" + ", ".join(self.engine.action_to_str(state, a) for a in self._decode_flat(int(action))) + "]"
        return self.engine.action_to_str(state, action)

    def is_terminal(self) -> bool:
        """Whether the game is over (or cut off at the engine's ply cap)."""
        return self._finished()

    def returns(self) -> list[float]:
        """Each player's terminal reward (zeros while the game is live)."""
        if not self._finished():
            return [0.0] * self.engine.num_players
        return [float(r) for r in self.engine.returns(self._position.state)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> BarnyardState:
        """A state that ``player_id`` cannot tell from this one (what IS-MCTS searches from): Boaring's hidden
        cards dealt again at random (:meth:`~envs.boaring.rules.BoaringGame.determinize`), seeded by two draws of
        ``probability_sampler`` (floats in [0, 1)). Perfect-information games: a copy. Only at decision nodes
        and at the end; the copy's ``history()`` stays this state's (OpenSpiel keeps it), its position is the
        sample."""
        player = self._check_player(player_id)
        if self._position.need is not None or self._position.state is None:
            raise BridgeError("resample_from_infostate needs a decision node or the end, not a chance node")
        resampled = self.clone()
        if self._spec.info is not None:
            seed = [int(probability_sampler() * 2**53) for _ in range(2)]
            sample = self._spec.info.resample(self.engine, self._position.state, player, np.random.default_rng(seed))
            resampled._position.state = sample
        return resampled

    def __str__(self) -> str:
        state = self._position.state
        text = "(setting up)" if state is None else self.engine.render_ansi(state)
        if self._position.need is not None:
            text += f"\n(chance: {self._position.need[1]}, {self._position.need[0]} outcomes)"
        return text

    # ----- what a player knows ------------------------------------------------------------------------------
    def observation_text(self, player: int) -> str:
        """The text picture that ``player`` may see."""
        player = self._check_player(player)
        state = self._position.state
        if state is None:
            return "(setting up)"
        return str(self.engine.render_for(state, player, "ansi"))

    def information_state_text(self, player: int) -> str:
        """``player``'s information state: the action history (perfect information), or the observation and the
        public round log (Boaring, :mod:`envs.openspiel.boaring`)."""
        player = self._check_player(player)
        if self._spec.info is None:
            return " ".join(str(a) for a in self.history())
        return self._spec.info.string(self.engine, self._position.state, self._position.log, player)

    # ----- OpenSpiel 2's structs: to_struct / to_json, to_observation_struct, action_to_struct -------------------
    def _node(self) -> dict[str, Any]:
        """What kind of OpenSpiel node this is: ``current_player`` (OpenSpiel's id: a seat, or -1 chance, -2
        simultaneous, -4 terminal), ``move_number``, and at a chance node what is drawn."""
        need = self._position.need
        return {
            "current_player": int(self.current_player()),
            "move_number": int(self.move_number()),
            "chance": None if need is None else {"draw": need[1], "outcomes": int(need[0])},
        }

    def _struct(self, seat: int | None) -> dict[str, Any]:
        """:func:`~envs.common.seat_view.seat_view` of ``seat`` (None: the spectator view, everything) with the
        moves OpenSpiel takes here (``legal_actions(p)``: none at a chance node; one seat at a time in a turn-based
        registration) and the node under ``"openspiel"``."""
        state, engine = self._position.state, self.engine
        if state is None:
            return {
                "game": engine.name,
                "options": json.loads(json.dumps(engine.options())),
                "seat": seat,
                "num_players": engine.num_players,
                "setting_up": True,
                "openspiel": {"game": self._spec.short_name, **self._node()},
            }
        view = spectator_view(engine, state) if seat is None else seat_view(engine, state, seat)
        acting = {p: set(self._legal_actions(p)) for p in range(engine.num_players)}
        view["to_move"] = [p for p in view["to_move"] if acting[p]]

        def renumber(moves: list[dict[str, Any]], legal: set[int]) -> list[dict[str, Any]]:
            kept = [m for m in moves if m["action"] in legal]
            return [{**m, "number": i} for i, m in enumerate(kept, 1)]

        if seat is None:
            view["legal_moves"] = {str(p): renumber(view["legal_moves"][str(p)], acting[p]) for p in view["to_move"]}
        else:
            view["your_turn"] = seat in view["to_move"]
            view["legal_moves"] = renumber(view["legal_moves"], acting[seat]) if view["your_turn"] else []
        view["openspiel"] = {"game": self._spec.short_name, **self._node()}
        return view

    def _to_struct(self) -> dict[str, Any]:
        """OpenSpiel's ``to_struct()`` (and ``to_json()``, its JSON text): the world state, **hidden information
        included**, as OpenSpiel's own games give it (gin_rummy's holds both hands): the spectator view
        (:func:`~envs.common.seat_view.spectator_view`) with the node. A player's view is
        ``to_observation_struct(p)``."""
        return self._struct(None)

    def _to_observation_struct(self, player: int) -> dict[str, Any]:
        """OpenSpiel's ``to_observation_struct(p)``: what player ``p`` may know
        (:func:`~envs.common.seat_view.seat_view`), with the node."""
        return self._struct(self._check_player(player))

    def _action_to_struct(self, player: int, action: int) -> dict[str, Any]:
        """OpenSpiel's ``action_to_struct(p, a)``: ``{"player", "action", "notation"}`` (the engine's notation; a
        chance outcome says what was drawn)."""
        return {"player": int(player), "action": int(action), "notation": self._action_to_string(player, action)}

    def _struct_to_actions(self, data: Any) -> list[int]:
        """OpenSpiel's ``struct_to_actions``: ``{"action": id}`` (what :meth:`_action_to_struct` gives), or a move
        named as a language-model player names it, ``{"move": notation or listed number}`` (``"player"``: whose,
        default the player to move), read by :func:`~envs.common.seat_view.parse_reply`. A move that is not legal
        for that player is a :class:`BridgeError` saying why."""
        if not isinstance(data, dict):
            raise BridgeError(f"an action struct is a JSON object, not {reprlib.repr(data)}")
        if "action" in data:
            action = data["action"]
            if isinstance(action, bool) or not isinstance(action, int):
                raise BridgeError(f"an action struct's action is an action id (an integer), not {action!r}")
            return [action]
        if "move" not in data:
            raise BridgeError('an action struct names a move: {"action": <id>} or {"move": <notation or number>}')
        state = self._position.state
        player = data.get("player", self.current_player())
        if self._position.need is not None or state is None or self._finished():
            raise BridgeError('no player moves at a chance node or the end: give the outcome as {"action": <id>}')
        if (
            isinstance(player, bool)
            or not isinstance(player, int)
            or not self._legal_actions(self._check_player(player))
        ):
            raise BridgeError(
                f'player {player!r} has no move here; give "player" (players to move: '
                f"{[p for p in range(self.engine.num_players) if self._legal_actions(p)]})"
            )
        try:
            action = parse_reply(self.engine, state, player, json.dumps({"move": data["move"]}))
        except ReplyError as error:
            raise BridgeError(str(error)) from None
        if action not in self._legal_actions(player):
            raise BridgeError(f"{data['move']!r} is not legal for player {player} here")
        return [action]


class BarnyardObserver:
    """OpenSpiel's PyObserver for a Barnyard game: ``tensor`` / ``dict`` (the engine's observation, or Boaring's
    information-state tensor for ``perfect_recall``) and ``string_from`` (the observation picture, or the
    information state for ``perfect_recall``)."""

    def __init__(self, game: BarnyardGame, iig_obs_type: pyspiel.IIGObservationType, params: Any):
        if params:
            raise BridgeError(f"observation parameters are not supported; got {params}")
        engine = game.engine
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.privileged = False
        if not engine.perfect_information:
            private = iig_obs_type.private_info
            if private == pyspiel.PrivateInfoType.ALL_PLAYERS and not self.perfect_recall:
                self.privileged = True
            elif private != pyspiel.PrivateInfoType.SINGLE_PLAYER:
                raise BridgeError(
                    f"{game.spec.short_name} offers the observer's own view (private_info="
                    "SINGLE_PLAYER) and, without perfect recall, the privileged global state "
                    f"(ALL_PLAYERS); not {iig_obs_type}"
                )
        self._engine = engine
        self._info = game.spec.info
        if self.perfect_recall:
            size = 0 if self._info is None else self._info.tensor_size(engine)
            self.tensor = np.zeros(size, np.float32)
            self.dict: dict[str, np.ndarray] = (
                {}
                if self._info is None
                else {
                    "observation": self.tensor[: engine.observation_shape[0]],
                    "rounds": self._info.round_slots(engine, self.tensor),
                }
            )
        else:
            shape = engine.global_state_shape if self.privileged else engine.observation_shape
            self.tensor = np.zeros(int(np.prod(shape)), np.float32)
            self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: BarnyardState, player: int) -> None:
        """Fill ``tensor`` with ``state`` as ``player`` observes it (zeros before the set-up is complete)."""
        player = state._check_player(player)
        es = state.engine_state
        if self.perfect_recall:
            if self._info is not None:
                self._info.tensor(self._engine, es, state._position.log, player, self.tensor)
        elif es is None:
            self.tensor.fill(0.0)
        elif self.privileged:
            self.tensor[:] = self._engine.global_state(es).reshape(-1)
        else:
            self.tensor[:] = self._engine.observation(es, player).reshape(-1)

    def string_from(self, state: BarnyardState, player: int) -> str:
        """The information state (perfect recall), the spectator picture (privileged) or ``player``'s picture."""
        if self.perfect_recall:
            return state.information_state_text(player)
        if self.privileged:
            state._check_player(player)
            return (
                str(state)
                if state.engine_state is None
                else str(self._engine.render_for(state.engine_state, None, "ansi"))
            )
        return state.observation_text(player)


# ----- registration ------------------------------------------------------------------------------------------
_GAME_CLASSES: dict[str, type[BarnyardGame]] = {}


def _game_type(spec: BridgeSpec) -> pyspiel.GameType:
    perfect = _engine_class(spec.game).perfect_information
    return pyspiel.GameType(
        short_name=spec.short_name,
        long_name=spec.long_name,
        dynamics=(
            pyspiel.GameType.Dynamics.SIMULTANEOUS
            if spec.simultaneous_node is not None
            else pyspiel.GameType.Dynamics.SEQUENTIAL
        ),
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            if spec.explicit_chance
            else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=(
            pyspiel.GameType.Information.PERFECT_INFORMATION
            if perfect
            else pyspiel.GameType.Information.IMPERFECT_INFORMATION
        ),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=spec.info is not None,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_default_options(spec),
    )


UNAVAILABLE: dict[str, str] = {}
"""Games of ``envs.GAMES`` the bridge could not register (their descriptor's OpenSpiel facts, or the modules these
read, fail), each with why: left out with a warning, the other games registered."""


def _game_classes(game: str) -> dict[str, type[BarnyardGame]]:
    """The OpenSpiel game classes of one Barnyard game, one per registration (not registered yet)."""
    classes = {}
    for spec in specs_of(game):
        name = "".join(part.title() for part in spec.key.split("_"))
        classes[spec.key] = type(
            f"{name}OpenSpielGame",
            (BarnyardGame,),
            {"spec": spec, "game_type": _game_type(spec), "__module__": __name__},
        )
    return classes


def register() -> None:
    """Register every game of ``envs.GAMES`` with OpenSpiel (done on import, and again by :func:`load_game` for the
    games registered since; calling it again changes nothing). A game whose registration fails is left out with
    an ``envs.GameLoadWarning`` naming it and why (:data:`UNAVAILABLE`); the others are registered."""
    done = {spec.game for spec in SPECS.values()} | set(UNAVAILABLE)
    for game in envs.GAMES:
        if game in done:
            continue
        try:
            classes = _game_classes(game)
        except Exception as error:
            UNAVAILABLE[game] = f"{type(error).__name__}: {error}"
            warnings.warn(
                f"envs.openspiel leaves out game {game!r}: {UNAVAILABLE[game]}; the other games are registered",
                envs.GameLoadWarning,
                stacklevel=2,
            )
            continue
        for key, cls in classes.items():
            SPECS[key] = cls.spec
            GAME_NAMES[key] = cls.spec.short_name
            _GAME_CLASSES[key] = globals()[cls.__name__] = cls  # a module attribute, so that pickle finds it
    registered = set(pyspiel.registered_names())
    for cls in _GAME_CLASSES.values():
        if cls.spec.short_name not in registered:
            pyspiel.register_game(cls.game_type, cls)


SETUP_HOOK = "envs.openspiel.register"
"""Ray's ``worker_process_setup_hook`` that registers the games in a worker (:func:`ray_runtime_env_hook`)."""


def ray_runtime_env_hook(runtime_env: dict[str, Any] | None) -> dict[str, Any]:
    """Ray's ``RAY_RUNTIME_ENV_HOOK``: every Ray worker registers the Barnyard games before it runs anything.

    OpenSpiel looks games up by name in the process that loads them, and a Ray worker (an RLlib EnvRunner) never
    imports this module by itself, so ``pyspiel.load_game("barnyard_bestiarium")`` fails there. Ray reads this
    hook from the environment when the driver calls ``ray.init`` (this module's import registers the games in the
    driver as well), so a script needs no change::

        RAY_RUNTIME_ENV_HOOK=envs.openspiel.ray_runtime_env_hook python self_play_with_open_spiel.py \
            --env barnyard_bestiarium

    In code, ``ray.init(runtime_env={"worker_process_setup_hook": "envs.openspiel.register"})`` does the same.
    A runtime env that already names another setup hook is refused (Ray runs one)."""
    env = dict(runtime_env or {})
    hook = env.get("worker_process_setup_hook")
    if hook not in (None, SETUP_HOOK):
        raise ValueError(
            f"runtime_env already has worker_process_setup_hook={hook!r}; call {SETUP_HOOK}() from that hook instead"
        )
    env["worker_process_setup_hook"] = SETUP_HOOK
    return env


def load_game(game: str, **options: Any) -> pyspiel.Game:
    """``pyspiel.load_game`` for a Barnyard game id (``"boaring"``) or OpenSpiel name, options as keywords; for a
    game that did not load, an error saying why."""
    register()
    name = GAME_NAMES.get(game, game)
    if name not in GAME_NAMES.values():
        reason = UNAVAILABLE.get(game) or envs.UNAVAILABLE_GAMES.get(game)
        if reason:
            raise BridgeError(f"game {game!r} is not available: {reason}; available: {', '.join(GAME_NAMES)}")
        raise BridgeError(f"unknown game {game!r}; available: {', '.join(GAME_NAMES)}")
    return pyspiel.load_game(name, options)


def engine_of(game: pyspiel.Game) -> Game:
    """The Barnyard engine behind an OpenSpiel game loaded from this module."""
    if not isinstance(game, BarnyardGame):
        raise TypeError(f"{game} is not a Barnyard game")
    return game.engine


register()
