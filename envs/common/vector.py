"""Batched engines: B games stepped per call on struct-of-arrays state, with compiled (numba) kernels.

Each game's ``envs/<game>/fast.py`` implements :class:`BatchedGame`: its state is a ``NamedTuple`` of numpy
arrays whose first axis is the game (one row per game; a ``rng`` field of ``uint64`` holds each game's own
generator, :mod:`envs.common.fastrng`), and its methods run numba kernels over all rows. The readable
``rules.py`` stays the reference; the differential tests (``tests/<game>/test_<game>_fast.py``) check that both
give identical legal masks, observations, rewards and results.

:class:`VectorEnv` is the one piece of plumbing over any :class:`BatchedGame` (``envs.<game>_v0.vector_env``):

- Gymnasium's vector conventions where they fit: ``reset(seed) -> (obs, info)``,
  ``step(actions) -> (obs, rewards, terminated, truncated, info)``, ``num_envs``, ``single_observation_space``,
  ``single_action_space``, and same-step auto-reset (``metadata["autoreset_mode"]``): a game that ends in a step
  is restarted in that step; the returned observation is the new game's, and ``info["final_obs"]`` (with the
  boolean ``info["_final_obs"]`` marking the rows that ended; other rows are zeros) holds the final position
  seen by the seat that made the last move (:meth:`VectorEnv.observe` gives any seat's view of the current positions).
- pgx's multi-agent fields where they don't: the observation is from the point of view of the seat to move,
  ``info["current_player"]`` (B,) says which seat that is, ``rewards`` is ``(B, num_players)`` (each seat's
  reward for this step: the terminal returns when a game ends, else 0, as the AEC env pays them), and
  ``info["action_mask"]`` is the ``(B, num_actions)`` bool legal mask of the seat to move.

Observations and actions are encoded exactly as in the game's AEC env.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from envs.common.fastrng import below, seed_states
from envs.common.game import TERMINAL, FeaturePlanes, Game, IllegalActionError
from envs.common.jit import refcount_jit
from envs.common.state import StateLayout


class BatchedGame(ABC):
    """A game's rules over many games at once. Subclasses set the attributes and implement the kernels' wrappers.

    Every method works on all rows of ``state`` (a ``NamedTuple`` of arrays, first axis = game). Rows whose game
    is over are left alone by :meth:`apply` (their action is ignored).
    """

    name: str = ""
    game_class: ClassVar[type[Game]]
    """The game's rule engine (``rules.py``): the reference this engine is built on, with the same options."""
    reference: Game
    """The rule engine built with this engine's options: the oracle of the differential tests and the other side
    of :meth:`to_reference` / :meth:`from_reference`."""
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    max_game_length: int
    """The AEC env's safety-net ply cap: a game reaching it is truncated (as ``BarnyardAECEnv`` does)."""

    def __init__(self, **options: Any) -> None:
        """The engine for ``options``: they reach the rule engine (:attr:`reference`), which checks them against
        the game's ``OPTIONS`` table (a :class:`~envs.common.game.ConfigError` naming what is allowed) and fills in
        the defaults; the sizes above are the reference's. A subclass builds its tables from :attr:`reference`."""
        self.reference = ref = self.game_class(**options)
        self.num_players = ref.num_players
        self.num_actions = ref.num_actions
        self.observation_shape = tuple(ref.observation_shape)
        self.max_game_length = ref.max_game_length

    def options(self) -> dict[str, Any]:
        """The options (JSON-safe) this engine was built with, as the reference game reports them."""
        return self.reference.options()

    def input_features(self) -> dict[str, FeaturePlanes]:
        """Named planes a network may compute from observation batches and read beside them
        (:class:`~envs.common.game.FeaturePlanes`; a network spec's ``input_features``, ``training.networks``): the
        batched engine offers them because its kernels compute them. None by default."""
        return {}

    state_layout: ClassVar[StateLayout | None] = None
    """The game's declared state (``kernels.py``, :class:`envs.common.state.StateLayout`): :meth:`new_state`
    follows from it, with the sizes of :meth:`state_sizes`."""

    def state_sizes(self) -> dict[str, int]:
        """The named sizes the declared state's shapes use (``{"players": 4}``); none by default."""
        return {}

    def new_state(self, batch: int) -> Any:
        """State for ``batch`` games, every row not started (call :meth:`reset_rows` before use)."""
        if self.state_layout is None:
            raise NotImplementedError(f"{self.name}: no declared state (state_layout) and no new_state")
        return self.state_layout.new_state(batch, self.state_sizes())

    @abstractmethod
    def reset_rows(self, state: Any, rows: np.ndarray) -> None:
        """Start a new game in each of ``rows``, drawing set-up chance from each row's own generator."""

    @abstractmethod
    def legal_mask(self, state: Any, out: np.ndarray) -> None:
        """Write the mover's legal mask of every row into ``out`` ``(B, num_actions)`` bool (zeros when over)."""

    @abstractmethod
    def apply(self, state: Any, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal: the caller checked) in every live row ``b``, chance from the row's generator."""

    @abstractmethod
    def observe(self, state: Any, seats: np.ndarray, out: np.ndarray) -> None:
        """Write row ``b``'s observation from ``seats[b]``'s point of view into ``out[b]`` (float32)."""

    @abstractmethod
    def current_player(self, state: Any) -> np.ndarray:
        """``(B,)`` seat to move per row, :data:`~envs.common.game.TERMINAL` where the game is over."""

    @abstractmethod
    def returns(self, state: Any) -> np.ndarray:
        """``(B, num_players)`` terminal rewards (zeros while a game is live), as the reference ``returns``."""

    @abstractmethod
    def truncated(self, state: Any) -> np.ndarray:
        """``(B,)`` bool: the game was cut (the engine's own cap or :attr:`max_game_length` plies), not ended."""

    def shaping_potential(self, state: Any) -> np.ndarray:
        """``(B, num_players)`` as the reference ``Game.shaping_potential`` (for score shaping)."""
        raise NotImplementedError(f"{self.name}: no batched shaping potential")

    def greedy_actions(self, state: Any, rng: np.ndarray, out: np.ndarray) -> None:
        """Optional: the game's greedy baseline's action for the seat to move in every row of ``state``, computed
        by compiled kernels, into ``out`` ``(B,)`` int64; chance and tie-breaks from ``rng`` (a ``uint64``
        SplitMix64 state per row, :mod:`envs.common.fastrng`, advanced in place). An engine that implements it
        sets :attr:`has_greedy_actions` (the trainer otherwise plays the Python ``GreedyPolicy``)."""
        raise NotImplementedError(f"{self.name}: no compiled greedy baseline")

    has_greedy_actions: bool = False
    """The engine implements :meth:`greedy_actions` (all four: Battle Sheep, Beasty Borders, Bestiarium, Boaring)."""

    # ----- rows as values ----------------------------------------------------------------------------
    def take(self, state: Any, rows: np.ndarray) -> Any:
        """A new state holding copies of ``rows`` (in that order): clones, for search."""
        return type(state)(*(field[rows] for field in state))

    def put(self, state: Any, rows: np.ndarray, source: Any) -> None:
        """Copy every row of ``source`` into ``state[rows]``."""
        for mine, theirs in zip(state, source):
            mine[rows] = theirs

    def apply_rows(self, state: Any, rows: np.ndarray, actions: np.ndarray) -> None:
        """Play ``actions[j]`` (legal) in row ``rows[j]`` (distinct rows) and leave the other rows alone: the
        scripted seats' moves in a few of a group's games. This default copies the rows out, plays them and copies
        them back (:meth:`take`, :meth:`apply`, :meth:`put`); an engine with a kernel over given rows overrides it."""
        sub = self.take(state, rows)
        self.apply(sub, actions)
        self.put(state, rows, sub)

    # ----- the bridge to the reference engine (differential tests, baselines) ----------------------------
    @abstractmethod
    def to_reference(self, state: Any, row: int) -> Any:
        """Row ``row`` as a state of the reference ``rules.py`` engine (its generator is not carried over)."""

    @abstractmethod
    def from_reference(self, reference_state: Any, state: Any, row: int) -> None:
        """Write a reference engine state into row ``row`` (the row's generator is kept)."""


_SAMPLE_BLOCK = 256
"""Mask entries summed per block while :func:`sample_legal` looks for the drawn action (a fixed-length loop that
the compiler vectorises)."""


def batched_game_class(game: str) -> type[BatchedGame] | None:
    """The :class:`BatchedGame` subclass defined in the game's ``fast.py`` (``envs/<game>/fast.py``), or None when
    the game has no batched engine (no such module). Imports the module (numba compiles nothing until a kernel is
    first called)."""
    import importlib
    import importlib.util

    import envs

    name = f"{envs.game_info(game).package}.fast"
    try:
        if importlib.util.find_spec(name) is None:
            return None
    except ModuleNotFoundError:
        return None
    module = importlib.import_module(name)
    found = [
        v for v in vars(module).values() if isinstance(v, type) and issubclass(v, BatchedGame) and v.__module__ == name
    ]
    if len(found) != 1:
        raise TypeError(f"{name} should define one BatchedGame subclass, found {[c.__name__ for c in found]}")
    return found[0]


@refcount_jit
def sample_legal(mask: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """``out[b]``: a uniformly random legal action of row ``b`` of the bool ``mask`` (-1 if none), from ``rng[b]``:
    the ``k``-th legal action in id order, ``k = below(rng, b, count)``.

    Byte sums instead of a branch per entry (a bool is one byte, 0 or 1), and whole blocks skipped while looking
    for the ``k``-th: with Battle Sheep's 37,000 actions a row's two passes were most of a batched step."""
    n = mask.shape[1]
    whole = n - n % _SAMPLE_BLOCK
    for b in range(mask.shape[0]):
        row = mask[b].view(np.uint8)
        count = 0
        for a in range(n):
            count += row[a]
        if count == 0:
            out[b] = -1
            continue
        k = np.int64(below(rng, b, count))  # below returns a uint64; uint64 - int64 is a float in numba
        start = 0
        while start < whole:
            block = np.uint32(0)
            for a in range(_SAMPLE_BLOCK):
                block += row[start + a]
            if k < block:
                break
            k -= np.int64(block)
            start += _SAMPLE_BLOCK
        for a in range(start, n):
            if row[a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


class VectorEnv:
    """``num_envs`` games of one :class:`BatchedGame`, stepped together, restarted as they end (see module doc)."""

    metadata: dict[str, Any] = {"autoreset_mode": "same_step"}

    def __init__(self, game: BatchedGame, num_envs: int, copy: bool = True):
        """``copy``: return a fresh observation array from ``reset``/``step`` (Gymnasium's default). With False the
        same buffer is returned every time, overwritten by the next call, and so is ``info["final_obs"]`` (its rows
        for games that did not end are zeros): no allocation per step (a (1024, 568) float32 array costs about a
        third of a batched Beasty Borders step in page faults; a fresh (1024, 21, 23, 23) ``final_obs`` with a
        few rows written cost a batched Battle Sheep step 6 ms)."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} is not valid; allowed: an integer >= 1")
        self.game = game
        self.num_envs = int(num_envs)
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        single = self._aec_observation_space(game)
        self.single_observation_space = single
        self.single_action_space: spaces.Discrete = spaces.Discrete(game.num_actions)
        self.observation_space = spaces.Box(
            np.broadcast_to(single.low, (self.num_envs, *single.shape)),
            np.broadcast_to(single.high, (self.num_envs, *single.shape)),
            dtype=np.float32,
        )
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, game.num_actions))
        self.state = game.new_state(self.num_envs)
        self._mask = np.zeros((self.num_envs, game.num_actions), dtype=bool)
        self._obs = np.zeros((self.num_envs, *game.observation_shape), dtype=np.float32)
        self.copy = bool(copy)
        self._all_rows = np.arange(self.num_envs)
        self._final: np.ndarray | None = None
        """copy=False: the reused ``final_obs`` buffer, and the rows written in it last (cleared on the next use)."""
        self._final_rows = np.zeros(0, dtype=np.int64)
        self._has_reset = False

    @staticmethod
    def _aec_observation_space(game: BatchedGame) -> spaces.Box:
        """The AEC env's observation Box for the same options, without building an AEC env: the engine's bounds as
        the env class gives them (``raw_env.observation_bounds``; the same encoding, so the same bounds). A plain
        [0, 1] Box for a game that is not one of the registered envs (tests' toy games)."""
        import envs

        if game.name not in envs.GAMES:
            return spaces.Box(0.0, 1.0, shape=tuple(game.observation_shape), dtype=np.float32)
        engine = getattr(game, "reference", None)  # the batched engines keep their rule engine
        if engine is None:
            engine = envs.make_game(game.name, **game.options())
        low, high = envs.module(game.name).raw_env.observation_bounds(engine)
        shape = tuple(engine.observation_shape)
        return spaces.Box(
            np.full(shape, low, dtype=np.float32), np.full(shape, high, dtype=np.float32), dtype=np.float32
        )

    # ----- Gymnasium's vector API -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start every game; ``seed`` gives each game its own generator (same seed, same games). Without a seed
        the generators run on (the first reset without one draws fresh entropy)."""
        if seed is not None or not self._has_reset:
            self.state.rng[:] = seed_states(seed, self.num_envs)
        self.game.reset_rows(self.state, self._all_rows)
        self._has_reset = True
        return self._observe_movers(), self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play one action per game (for the seat to move). An illegal action raises
        :class:`~envs.common.game.IllegalActionError` naming the game, before any game changes."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_envs} integers, got shape {actions.shape} of {actions.dtype}"
            )
        actions = actions.astype(np.int64, copy=False)
        bad = (actions < 0) | (actions >= self.num_actions)
        if not bad.any():
            bad = ~self._mask[self._all_rows, actions]
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                f"game {b}: action {int(actions[b])} is not legal for seat "
                f"{int(self.current_player[b])} (out of range or masked out)"
            )
        game, state = self.game, self.state
        acting = game.current_player(state)
        game.apply(state, actions)
        seats = game.current_player(state)
        terminated = seats == TERMINAL
        truncated = ~terminated & game.truncated(state)
        rewards = np.where(terminated[:, None], game.returns(state), 0.0).astype(np.float32)
        done = terminated | truncated
        info: dict[str, Any] = {}
        if done.any():
            rows = np.flatnonzero(done)
            view = np.empty((rows.size, *game.observation_shape), dtype=np.float32)
            game.observe(game.take(state, rows), acting[rows], view)
            if self.copy:
                final = np.zeros((self.num_envs, *game.observation_shape), dtype=np.float32)
            else:
                if self._final is None:
                    self._final = np.zeros((self.num_envs, *game.observation_shape), dtype=np.float32)
                final = self._final
                final[self._final_rows] = 0.0
                self._final_rows = rows
            final[rows] = view
            info["final_obs"], info["_final_obs"] = final, done
            game.reset_rows(state, rows)
        obs = self._observe_movers()
        info.update(self._info())
        return obs, rewards, terminated, truncated, info

    def close(self) -> None:
        pass

    # ----- pgx's fields -------------------------------------------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        """``(B,)`` seat to move in each game."""
        return self.game.current_player(self.state)

    @property
    def action_mask(self) -> np.ndarray:
        """``(B, num_actions)`` bool legal mask of the seat to move (valid until the next step; do not modify)."""
        return self._mask

    def observe(self, seats: np.ndarray) -> np.ndarray:
        """Every game's observation from ``seats[b]``'s point of view (any seat, not only the mover's)."""
        out = np.empty((self.num_envs, *self.game.observation_shape), dtype=np.float32)
        self.game.observe(self.state, np.asarray(seats, dtype=np.int64), out)
        return out

    # ----- inner workings ---------------------------------------------------------------------------------
    def _observe_movers(self) -> np.ndarray:
        # the mask last: a sampler that reads it next finds more of it still in the cache
        self.game.observe(self.state, self.current_player.astype(np.int64), self._obs)
        self.game.legal_mask(self.state, self._mask)
        return self._obs.copy() if self.copy else self._obs

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask, "current_player": self.current_player}
