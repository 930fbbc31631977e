"""The rule-engine contract every Barnyard game implements.

A :class:`Game` holds immutable options and precomputed tables (neighbour lists, rays, ...). A *state* is a
separate mutable value owned by the caller; ``apply`` changes it in place and ``clone`` copies it, so search
code can branch cheaply. Randomness enters only through an ``np.random.Generator`` argument (chance events such
as dice and shuffles), never through a global RNG, so the same generator state gives the same game.

Seats are turn-order indices ``0..n-1`` inside the engine; agent names (``player_i``) are the AEC layer's.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, TypeVar

import numpy as np

TERMINAL = -1
"""``current_player`` of a finished game."""


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state, or that is outside the action space.

    Raised by the engine *before* any change to the state, so a caught error leaves the game as it was.
    """


class ConfigError(ValueError):
    """Invalid game options (player count, unknown variant, ...): the message says what is allowed."""


class SnapshotError(ValueError):
    """A snapshot that does not belong to this game or options, or that is damaged."""


S = TypeVar("S")


def check_int_range(name: str, value: Any, low: int, high: int) -> int:
    """Raise :class:`ConfigError` unless ``value`` is an int in ``[low, high]`` (options are checked by their table,
    :mod:`envs.common.options`; this is for a range that depends on another option)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ConfigError(f"{name}={value!r} is not valid; allowed: an integer from {low} to {high}")
    return int(value)


def pairwise_rewards(rank_keys: Sequence[Any]) -> np.ndarray:
    """Zero-sum terminal rewards from comparable per-seat ranking keys (higher key = better).

    Each seat gets (number of seats it beats - number of seats that beat it) / (n - 1). With two players this is
    +1 / -1 for a win / loss and 0 for a draw; with more, the sole winner gets +1, the sole loser -1, tied seats
    get equal rewards, and the rewards always sum to zero.
    """
    n = len(rank_keys)
    rewards = np.zeros(n, dtype=np.float64)
    for i in range(n):
        for j in range(i + 1, n):
            if rank_keys[i] > rank_keys[j]:
                rewards[i] += 1.0
                rewards[j] -= 1.0
            elif rank_keys[j] > rank_keys[i]:
                rewards[j] += 1.0
                rewards[i] -= 1.0
    return rewards / (n - 1)


@dataclass(frozen=True)
class CellGraph:
    """The cells of a game's ``(C, H, W)`` planes that can matter, and each cell's neighbours: what a network needs
    to work on the board's cells alone instead of the whole square canvas (``training.networks.HexNet``).

    A position's *support* is the cells where ``cell_plane`` is 1 (Battle Sheep: the pasture). Where the constant
    plane ``grow_plane`` is 1 (Battle Sheep: the build phase), the support also takes ``seed_cell`` and every cell
    within ``grow_steps`` neighbour steps of a support cell (the cells a tile placement can use). Every legal
    action's cell (:meth:`Game.action_layout`) lies in its position's support, and nothing outside the support
    carries information about the position: a network may treat those cells as absent.
    """

    neighbours: np.ndarray
    """``(H * W, k)`` int64: the flat indices of each cell's ``k`` neighbours (in a fixed direction order), -1 off
    the grid."""
    cell_plane: int
    """The plane that is 1 on the cells of the board."""
    grow_plane: int = -1
    """A constant plane; where it is 1 the support grows (-1: never)."""
    grow_steps: int = 0
    """Neighbour steps the support grows by where ``grow_plane`` is 1."""
    seed_cell: int = -1
    """A cell added to the support where ``grow_plane`` is 1, before it grows (-1: none)."""


@dataclass(frozen=True)
class Symmetry:
    """A symmetry of a game's rules (e.g. a rotation of the board): the same position seen turned.

    ``observation_source``: flat gather map, ``observation(turned).ravel() == observation(state).ravel()[map]``.
    ``actions``: ``actions[a]`` is action ``a`` turned (a permutation of the action ids), so the turned
    position's legal mask is the mask scattered through it: ``turned_mask[actions] = mask``.
    """

    observation_source: np.ndarray
    actions: np.ndarray

    def observation(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` as seen in the turned position."""
        return obs.reshape(-1)[self.observation_source].reshape(obs.shape)

    def mask(self, mask: np.ndarray) -> np.ndarray:
        """The legal mask of the turned position."""
        out = np.zeros_like(mask)
        out[self.actions] = mask
        return out


@dataclass(frozen=True)
class FeaturePlanes:
    """Planes a network may compute from a batch of observations and read beside them (``BatchedGame.input_features``):
    derived from what the observation shows, so a policy that reads them still acts from its observation alone."""

    num_planes: int
    """Planes per observation, on the observation's (H, W) squares."""
    make: Callable[[], Callable[[np.ndarray], np.ndarray]]
    """A new computer with its own work buffers (one call at a time each): ``(B, *observation_shape)`` float32 ->
    ``(B, num_planes, H, W)`` float32."""


OPTIONAL_VIEWS: dict[str, str] = {
    "observation_and_mask": "observation",
    "symmetries": "observation",
    "cell_graph": "observation",
    "action_layout": "observation",
    "global_state": "observation",
    "global_state_shape": "observation",
    "global_state_bounds": "observation",
    "render_for": "render",
    "action_to_str_for": "render",
}
"""The view functions a game may give, each with its room; the :class:`Game` methods of the same names use them."""


class ViewRooms:
    """A registered game's view rooms, which come after its rules (``registry.ROOMS``): the rules never import
    them, and :class:`Game` reaches them through the game's descriptor instead (:attr:`Game.views`)."""

    def __init__(self, game: str):
        from envs.common import registry  # the registry imports the games' packages, which import this module

        info = registry.get(game)
        self.game = game
        self.observation: ModuleType = info.room("observation")
        """``observation.py``: ``observe(game, state, seat)`` and the observation-room names of
        :data:`OPTIONAL_VIEWS` the game has."""
        self.render: ModuleType = info.room("render")
        """``render.py``: ``state_to_json``, ``state_from_json``, ``render_ansi``, ``render_rgb``, and where the game
        hides information ``render_for`` and ``action_to_str_for``."""
        self.optional: dict[str, Callable[..., Any] | None] = {
            name: getattr(getattr(self, room), name, None) for name, room in OPTIONAL_VIEWS.items()
        }
        """Each of :data:`OPTIONAL_VIEWS`: the game's function, or None where it has none."""
        self.observe: Callable[..., Any] = self.observation.observe
        """``observation.observe(game, state, seat)``."""
        both = self.optional["observation_and_mask"]
        if both is None:
            observe = self.observe

            def both(game: Any, state: Any, seat: int) -> tuple[np.ndarray, np.ndarray]:
                return observe(game, state, seat), game.legal_mask(state)

        self.observation_and_mask: Callable[..., tuple[np.ndarray, np.ndarray]] = both
        """The game's ``observation_and_mask``, or ``observe`` then the Game's ``legal_mask`` (what the env calls at
        every step, found once)."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return view_rooms, (self.game,)  # modules do not pickle: a copy looks the rooms up again


@functools.cache
def view_rooms(game: str) -> ViewRooms:
    """The view rooms of registered game ``game`` (imported once, then cached)."""
    return ViewRooms(game)


class CachedViews:
    """:attr:`Game.views`: the game's :class:`ViewRooms`, looked up once per game object and kept in its
    ``__dict__`` (a plain attribute read afterwards: the env reads a view at every step)."""

    def __get__(self, game: Any, owner: type | None = None) -> Any:
        if game is None:
            return self
        rooms = view_rooms(game.name)
        if hasattr(game, "__dict__"):
            game.__dict__["views"] = rooms
        return rooms


class Game(ABC, Generic[S]):
    """A game's rules over explicit states. Subclasses set the class attributes and implement the methods."""

    name: str = ""
    """Short id, e.g. ``"battle_sheep"``."""
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    observation_dtype: type = np.float32
    max_game_length: int
    """An upper bound on plies, used by tests and as the AEC layer's safety net."""

    # ----- the state machine -------------------------------------------------------------------
    @abstractmethod
    def options(self) -> dict[str, Any]:
        """The options this game was built with (JSON-safe), enough to rebuild it."""

    @abstractmethod
    def initial_state(self, rng: np.random.Generator) -> S:
        """A fresh game; ``rng`` draws any set-up chance (shuffles, random boards)."""

    @abstractmethod
    def current_player(self, state: S) -> int:
        """Seat to act, or :data:`TERMINAL`. Passes, skips and 'play again' turns are encoded here."""

    @abstractmethod
    def legal_mask(self, state: S) -> np.ndarray:
        """int8 vector of length ``num_actions``: 1 where the current player may act (all zeros when over)."""

    @abstractmethod
    def apply(self, state: S, action: int, rng: np.random.Generator) -> None:
        """Play ``action`` for the current player in place. Raises :class:`IllegalActionError` untouched."""

    @abstractmethod
    def returns(self, state: S) -> np.ndarray:
        """Terminal rewards per seat (zero-sum), zeros while the game is live."""

    @abstractmethod
    def clone(self, state: S) -> S:
        """An independent copy of ``state``."""

    def is_terminal(self, state: S) -> bool:
        """Whether the game is over."""
        return self.current_player(state) == TERMINAL

    def is_truncated(self, state: S) -> bool:
        """Whether a ply cap cut the game short (games that cannot cycle never truncate)."""
        return False

    def legal_actions(self, state: S) -> list[int]:
        """Legal action ids, ascending."""
        return np.flatnonzero(self.legal_mask(state)).tolist()

    def seats_to_move(self, state: S) -> dict[int, list[int]]:
        """Every seat that has to choose now, each with its legal actions (ascending): the player to move; in a
        simultaneous phase that the engine takes one seat at a time (Boaring's face-down bids, each hidden until
        all are in), every seat still to choose, in the order the engine takes them (the player to move first).
        Empty once the game is over. On an :meth:`information_state` a seat's own list is exact, another seat's
        may be empty (what it holds is hidden). :mod:`envs.common.seat_view` reads it."""
        seat = self.current_player(state)
        return {} if seat == TERMINAL else {seat: self.legal_actions(state)}

    def scores(self, state: S) -> np.ndarray:
        """Per-seat game score as the rulebook counts it (for reports; may be meaningful mid-game)."""
        return self.returns(state)

    def shaping_potential(self, state: S) -> np.ndarray:
        """Per-seat progress measure for potential-based reward shaping (``training``'s ``score_shaping``):
        the running score unless a game knows a better one (Battle Sheep adds the sheep that can still move,
        since its score only says who has been blocked after the fact)."""
        return self.scores(state)

    # ----- what a player sees ------------------------------------------------------------------
    views: ViewRooms = CachedViews()  # type: ignore[assignment]
    """This game's view rooms, through its descriptor (a game outside the registry overrides the view methods
    instead)."""

    def view_function(self, name: str) -> Callable[..., Any] | None:
        """The game's view function ``name`` (one of :data:`OPTIONAL_VIEWS`), None where it has none or the game is
        not registered."""
        try:
            return self.views.optional[name]
        except ValueError:  # not registered: registry.get
            return None

    def observation(self, state: S, seat: int) -> np.ndarray:
        """The observation tensor from ``seat``'s point of view ('me' first); hidden information filtered
        (``observation.observe``)."""
        return self.views.observe(self, state, seat)

    def observation_and_mask(self, state: S, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`observation` of ``seat``, the player to move, and :meth:`legal_mask`: what an env builds at every
        step. A game whose compiled kernels build both in one call gives ``observation.observation_and_mask(game,
        state, seat)`` (each call from Python costs)."""
        try:
            views = self.views
        except ValueError:  # a game outside the registry: its own observation
            return self.observation(state, seat), self.legal_mask(state)
        return views.observation_and_mask(self, state, seat)

    perfect_information: bool = True
    """Whether every seat sees the whole position (chance still to come aside). Only then is there a
    :meth:`global_state` that hides nothing from anyone."""
    hidden_information_note: str = ""
    """Hidden-information games: what is hidden, for the message of :meth:`global_state`."""
    privileged_global_state: bool = False
    """True for a hidden-information game that still offers :meth:`global_state`: a *privileged* view holding
    every seat's secrets, for centralised training (a critic that sees everything) and never for an agent's
    policy. Such a game overrides :meth:`global_state`, :attr:`global_state_shape` and
    :meth:`global_state_bounds`."""

    @property
    def global_state_shape(self) -> tuple[int, ...]:
        """Shape of :meth:`global_state`: the observation's with ``num_players`` more planes ((C, H, W)
        observations) or entries (flat ones); a game's ``observation.global_state_shape(game)`` where it has one."""
        own = self.view_function("global_state_shape")
        if own is not None:
            return own(self)
        shape = self.observation_shape
        return (shape[0] + self.num_players, *shape[1:])

    def global_state(self, state: S) -> np.ndarray:
        """PettingZoo's ``state()`` (a global view for centralised critics): the observation from seat 0's point
        of view (a fixed frame: seat 0 first, the others in turn order), followed by a one-hot of the seat to
        move, all zeros once the game is over: ``num_players`` constant planes (all ones on the mover's) after
        the planes of a (C, H, W) observation, ``num_players`` entries after a flat one. Same dtype as the
        observation; entries within the observation's bounds and 0 / 1.

        Defined for perfect-information games (:attr:`perfect_information`); a hidden-information game either
        gives a privileged view (:attr:`privileged_global_state`, ``observation.global_state(game, state)``) or
        raises NotImplementedError.
        """
        own = self.view_function("global_state")
        if own is not None:
            return own(self, state)
        if not self.perfect_information:
            raise NotImplementedError(
                f"{self.name} has hidden information ({self.hidden_information_note}); it has no global state "
                "that is not some seat's secret; use the agents' own observations"
            )
        obs = self.observation(state, 0)
        to_move = np.zeros((self.num_players, *obs.shape[1:]), dtype=obs.dtype)
        seat = self.current_player(state)
        if seat != TERMINAL:
            to_move[seat] = 1
        return np.concatenate([obs, to_move])

    def global_state_bounds(self, obs_low: Any = 0.0, obs_high: Any = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Elementwise (low, high) of :meth:`global_state`, given the observation's bounds (scalars or arrays
        broadcastable to :attr:`observation_shape`): the observation's, then 0 / 1 for the to-move one-hot; a
        game's ``observation.global_state_bounds(game, obs_low, obs_high)`` where it has one."""
        own = self.view_function("global_state_bounds")
        if own is not None:
            return own(self, obs_low, obs_high)
        low = np.broadcast_to(np.asarray(obs_low, dtype=np.float64), self.observation_shape)
        high = np.broadcast_to(np.asarray(obs_high, dtype=np.float64), self.observation_shape)
        extra = (self.num_players, *self.observation_shape[1:])
        return (
            np.concatenate([low, np.zeros(extra)]).astype(self.observation_dtype),
            np.concatenate([high, np.ones(extra)]).astype(self.observation_dtype),
        )

    def information_state(self, state: S, seat: int) -> S:
        """A copy of ``state`` holding only what ``seat`` may know (perfect-information games: a plain clone).

        Hidden-information games replace what ``seat`` cannot see by placeholders; policies that search must
        sample the hidden parts themselves.
        """
        return self.clone(state)

    def determinize(self, info_state: S, seat: int, rng: np.random.Generator) -> S:
        """A full state consistent with ``information_state(.., seat)``, hidden parts sampled with ``rng``.

        Perfect-information games return a plain clone; hidden-information games override this.
        """
        return self.clone(info_state)

    def action_layout(self) -> np.ndarray | None:
        """Where each action lives on the observation planes, for per-cell policy heads; None if it doesn't.

        Games whose observation is ``(C, H, W)`` planes and whose every action belongs to one cell may return a
        ``(num_actions, 2)`` int array of rows ``(cell index in the flattened H x W plane, channel)``; a
        network can then score each action from that cell's features (a 1x1 convolution with one output
        channel per action kind) and gather the logits into the flat action order (``observation.action_layout``
        where the game has one).
        """
        own = self.view_function("action_layout")
        return None if own is None else own(self)

    def cell_graph(self) -> CellGraph | None:
        """The board's cells and neighbours for networks that work on the board alone (:class:`CellGraph`); None
        when the observation is not a board of cells with a per-cell action layout, or every cell matters
        (``observation.cell_graph`` where the game has one)."""
        own = self.view_function("cell_graph")
        return None if own is None else own(self)

    has_symmetries: bool = False
    """True when :meth:`symmetries` can return more than the identity."""

    def symmetries(self, state: S) -> Sequence[Symmetry]:
        """Symmetries of the rules that hold at ``state`` for the player to move, the identity first; empty when
        the game declares none there. A policy may average its move over them (``sym:`` checkpoints;
        ``observation.symmetries`` where the game has them)."""
        own = self.view_function("symmetries")
        return () if own is None else own(self, state)

    # ----- text, pictures, snapshots -----------------------------------------------------------
    @abstractmethod
    def action_to_str(self, state: S, action: int) -> str:
        """Readable notation for ``action`` in ``state``."""

    def str_to_action(self, state: S, text: str) -> int:
        """Parse notation back to an action id; raises :class:`IllegalActionError` for unknown text.

        The default matches ``text`` against the notation of every legal action (case-insensitive).
        """
        wanted = text.strip().lower()
        for action in self.legal_actions(state):
            if self.action_to_str(state, action).lower() == wanted:
                return action
        if wanted.isdigit() and 0 <= int(wanted) < self.num_actions:
            return int(wanted)
        raise IllegalActionError(f"{text!r} is not a legal move here")

    def state_to_json(self, state: S) -> dict[str, Any]:
        """An exact JSON-safe description of ``state`` (hidden information included; ``render.state_to_json``)."""
        return self.views.render.state_to_json(self, state)

    def state_from_json(self, data: dict[str, Any]) -> S:
        """Inverse of :meth:`state_to_json`; raises :class:`SnapshotError` for damaged data
        (``render.state_from_json``)."""
        return self.views.render.state_from_json(self, data)

    def render_ansi(self, state: S) -> str:
        """A text picture of the position (``render.render_ansi``)."""
        return self.views.render.render_ansi(self, state)

    def render_rgb(self, state: S) -> np.ndarray:
        """An HxWx3 uint8 picture of the position (``render.render_rgb``)."""
        return self.views.render.render_rgb(self, state)

    def render_for(self, state: S, observer: int | None, mode: str = "ansi") -> str | np.ndarray:
        """The picture of ``state`` that seat ``observer`` may see: text (``mode="ansi"``) or an HxWx3 uint8 image
        (``"rgb_array"``). ``observer=None`` is the spectator's view, everything included. Perfect-information
        games show every seat the whole position (the same picture for every observer); hidden-information games
        give ``render.render_for(game, state, observer, mode)`` to draw only what the seat's observation holds."""
        own = self.view_function("render_for")
        if own is not None:
            return own(self, state, observer, mode)
        self.check_render_request(observer, mode)
        if not self.perfect_information:
            raise NotImplementedError(f"{self.name} hides information and must draw each seat's own view")
        return self.render_rgb(state) if mode == "rgb_array" else self.render_ansi(state)

    def action_to_str_for(self, state: S, action: int, observer: int | None) -> str:
        """What seat ``observer`` sees of ``action`` when the player to move plays it in ``state``: its notation,
        unless the rules hide it from ``observer`` (then only what they show, e.g. that a card was laid face
        down; ``render.action_to_str_for(game, state, action, observer)`` where the game has one). ``None`` (the
        spectator) sees every move."""
        own = self.view_function("action_to_str_for")
        return self.action_to_str(state, action) if own is None else own(self, state, action, observer)

    # ----- helpers for subclasses --------------------------------------------------------------
    def check_render_request(self, observer: Any, mode: str) -> None:
        """ValueError unless ``observer`` is None or a seat and ``mode`` is "ansi" or "rgb_array"."""
        if mode not in ("ansi", "rgb_array"):
            raise ValueError(f"mode must be 'ansi' or 'rgb_array', not {mode!r}")
        if observer is not None and (
            isinstance(observer, bool)
            or not isinstance(observer, (int, np.integer))
            or not 0 <= observer < self.num_players
        ):
            raise ValueError(f"observer must be None or a seat 0..{self.num_players - 1}, not {observer!r}")

    def check_action_range(self, action: Any) -> int:
        """Turn ``action`` into an int in range or raise :class:`IllegalActionError` naming it."""
        if isinstance(action, (np.ndarray,)) and action.shape == ():
            action = action.item()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action {action!r} is not an integer action id")
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(f"action {action} is out of range [0, {self.num_actions})")
        return int(action)
