"""The AEC plumbing, written once for every Barnyard game.

:class:`BarnyardAECEnv` maps a :class:`~envs.common.game.Game` onto PettingZoo's AEC API the way PettingZoo's
classic games do: agents ``player_0..player_{n-1}`` (agent ``player_i`` sits at engine seat ``i``),
observations ``{"observation": ndarray, "action_mask": int8 ndarray}`` from the observer's point of view with
the mask all zeros for anyone not to move, terminal rewards only, and the standard dead-step protocol at the end.

``state()`` is PettingZoo's global state (:meth:`~envs.common.game.Game.global_state`, bounded by
``state_space``): the whole position in perfect-information games, a privileged view with every hand in
Boaring (for centralised critics only); the engine's state of the game is the attribute ``game_state``.

``raw_env`` raises :class:`~envs.common.game.IllegalActionError` for an illegal action and leaves the game as it
was. :func:`wrap_standard` gives ``env()``: the semantics of PettingZoo's ``TerminateIllegalWrapper`` (an illegal
move ends the game, -1 to the mover), ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` in one layer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.common.game import TERMINAL, Game, IllegalActionError, SnapshotError
from envs.common.policies import Decision

SNAPSHOT_VERSION = 1


def agent_name(seat: int) -> str:
    """The AEC agent name of engine seat ``seat``."""
    return f"player_{seat}"


class BarnyardAECEnv(AECEnv):
    """A PettingZoo AEC env over a rule engine. Subclasses set ``game_class`` and ``metadata["name"]``."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "barnyard",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    game_class: ClassVar[type[Game]]
    action_spaces: dict[str, spaces.Space[Any]]
    infos: dict[str, dict[str, Any]]
    _mask: np.ndarray | None

    def __init__(self, render_mode: str | None = None, **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; allowed: None, "
                + ", ".join(repr(m) for m in self.metadata["render_modes"])
            )
        self.render_mode = render_mode
        self.game: Game = self.game_class(**options)
        game = self.game
        self.possible_agents = [agent_name(i) for i in range(game.num_players)]
        self.seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        """Each agent's seat in the engine (``player_i`` sits in seat ``i``): what a trainer reads to map agents to
        the engine's seats (read it, do not change it)."""
        low, high = self.observation_bounds(game)
        self._names = tuple(self.possible_agents)
        """Agent name per seat (``possible_agents`` as it was built, whatever a caller does to that list)."""
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=low,
                    high=high,
                    shape=game.observation_shape,
                    dtype=game.observation_dtype,
                ),
                "action_mask": spaces.Box(low=0, high=1, shape=(game.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self._zero_mask = np.zeros(game.num_actions, dtype=np.int8)
        if game.perfect_information or game.privileged_global_state:
            state_low, state_high = game.global_state_bounds(low, high)
            self.state_space = spaces.Box(
                low=state_low, high=state_high, shape=game.global_state_shape, dtype=game.observation_dtype
            )
            """The space of :meth:`state` (games that offer a global state)."""
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.game_state = None
        """The engine's state of the current game (every hidden card included; None before reset()). Tools
        read it; agents get :meth:`observe`."""

    @classmethod
    def observation_bounds(cls, game: Game) -> tuple[Any, Any]:
        """The (low, high) of the observation Box for an engine (scalars, or arrays of its observation shape): [0, 1]
        here; envs with signed or wider planes override it. A classmethod, so that the batched ``VectorEnv`` reads
        the same bounds from the engine without building an AEC env."""
        return 0.0, 1.0

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----- life cycle ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. A seed re-seeds the env's generator; without one the generator runs on."""
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.game_state = self.game.initial_state(self.np_random)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.num_plies = 0
        self._mask = None
        self._after_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.seat_of[agent]
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            if self._mask is None:
                obs, self._mask = self.game.observation_and_mask(self.game_state, seat)
                return {"observation": obs, "action_mask": self._mask}
            mask = self._mask
        else:
            mask = self._zero_mask.copy()
        return {"observation": self.game.observation(self.game_state, seat), "action_mask": mask}

    def decision(self, agent: str) -> Decision:
        """``agent``'s decision as a scripted policy reads it: its seat, its information state, and what
        :meth:`observe` gives it."""
        seat = self.seat_of[agent]
        seen = self.observe(agent)
        information = self.game.information_state(self.game_state, seat)
        return Decision(self.game, seat, information, seen["observation"], seen["action_mask"])

    def state(self) -> np.ndarray:
        """PettingZoo's global state (for centralised critics): :meth:`~envs.common.game.Game.global_state`, the
        observation from ``player_0``'s point of view followed by a one-hot of the seat to move (and, in a
        hidden-information game that offers one, every seat's secrets: privileged, for centralised critics
        only), shaped and bounded by :attr:`state_space`. Reading it changes nothing. Raises RuntimeError before
        reset() and NotImplementedError for a hidden-information game without a privileged view."""
        if self.game_state is None:
            raise RuntimeError("call reset() before state()")
        return self.game.global_state(self.game_state)

    def legal_mask(self) -> np.ndarray:
        """The current player's action mask (cached until the next move). Do not modify it."""
        if self._mask is None:
            self._mask = self.game.legal_mask(self.game_state)
        return self._mask

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(f"{agent} is to move; action None is only for finished agents")
        self.game.apply(self.game_state, action, self.np_random)  # raises before any change
        self.num_plies += 1
        self._mask = None
        self._cumulative_rewards[agent] = 0.0
        for a in self.rewards:
            self.rewards[a] = 0.0
        self._after_move()
        self._accumulate_rewards()

    def _after_move(self) -> None:
        """Point ``agent_selection`` at the engine's current player; settle the end of the game."""
        seat = self.game.current_player(self.game_state)
        if seat == TERMINAL:
            returns = self.game.returns(self.game_state)
            for a in self.agents:
                self.rewards[a] = float(returns[self.seat_of[a]])
                self.terminations[a] = True
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
        elif self.game.is_truncated(self.game_state) or self.num_plies >= self.game.max_game_length:
            for a in self.agents:
                self.truncations[a] = True
            self.agent_selection = self._names[seat]
        else:
            self.agent_selection = self._names[seat]

    # ----- extras every Barnyard env offers ----------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        """Notation of ``action`` for the player to move."""
        return self.game.action_to_str(self.game_state, self.game.check_action_range(action))

    def str_to_action(self, text: str) -> int:
        """Parse a move typed in the game's notation for the player to move."""
        return self.game.str_to_action(self.game_state, text)

    def snapshot(self) -> dict[str, Any]:
        """An exact JSON-safe copy of the whole env: game state (hidden information too), RNG and AEC books."""
        return {
            "format": SNAPSHOT_VERSION,
            "game": self.game.name,
            "options": self.game.options(),
            "state": self.game.state_to_json(self.game_state),
            "rng": _jsonable_rng_state(self.np_random.bit_generator.state),
            "aec": {
                "agents": list(self.agents),
                "agent_selection": self.agent_selection,
                "rewards": dict(self.rewards),
                "cumulative_rewards": dict(self._cumulative_rewards),
                "terminations": dict(self.terminations),
                "truncations": dict(self.truncations),
                "num_plies": self.num_plies,
            },
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Put the env back in the position of :meth:`snapshot`; raises :class:`SnapshotError` if it doesn't fit."""
        if not isinstance(snapshot, dict) or snapshot.get("format") != SNAPSHOT_VERSION:
            raise SnapshotError("not a Barnyard snapshot (missing or unknown 'format')")
        if snapshot.get("game") != self.game.name:
            raise SnapshotError(f"snapshot is for game {snapshot.get('game')!r}, this env is {self.game.name!r}")
        if snapshot.get("options") != json.loads(json.dumps(self.game.options())):
            raise SnapshotError(
                f"snapshot options {snapshot.get('options')!r} differ from this env's {self.game.options()!r}"
            )
        try:
            state = self.game.state_from_json(snapshot["state"])
            rng = np.random.Generator(np.random.PCG64())
            rng.bit_generator.state = snapshot["rng"]
            books = snapshot["aec"]
            agents = list(books["agents"])
            fields = {
                "rewards": {a: float(books["rewards"][a]) for a in agents},
                "_cumulative_rewards": {a: float(books["cumulative_rewards"][a]) for a in agents},
                "terminations": {a: bool(books["terminations"][a]) for a in agents},
                "truncations": {a: bool(books["truncations"][a]) for a in agents},
            }
            selection = books["agent_selection"]
            plies = int(books["num_plies"])
        except SnapshotError:
            raise
        except (KeyError, TypeError, ValueError) as err:
            raise SnapshotError(f"damaged snapshot: {err!r}") from err
        self.game_state = state
        self.np_random = rng
        self.agents = agents
        for name, value in fields.items():
            setattr(self, name, value)
        self.infos = {a: {} for a in agents}
        self.agent_selection = selection
        self.num_plies = plies
        self._mask = None

    # ----- pictures --------------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """The spectator's picture (everything, hidden cards included; Boaring labels it so)."""
        return render_game(self.game, self.game_state, self.render_mode)

    def render_for(self, agent: str) -> str | np.ndarray | None:
        """The picture ``agent`` may see, in this env's ``render_mode``: what its observation holds (in the
        perfect-information games the whole position, as :meth:`render`; in Boaring its own hand and bid, the
        public table, and other hands and face-down bids hidden). For a human at ``agent``'s seat."""
        if agent not in self.seat_of:
            raise ValueError(f"unknown agent {agent!r}; agents are {', '.join(self.possible_agents)}")
        return render_game(self.game, self.game_state, self.render_mode, observer=self.seat_of[agent])

    def close(self) -> None:
        pass


def render_game(
    game: Game, state: Any, render_mode: str | None, observer: int | None = None
) -> str | np.ndarray | None:
    """Gymnasium's render contract over a game state: text for "ansi", an image for "rgb_array", print for
    "human" (returns None), a warning and None without a render mode. ``observer``: draw what that seat may see
    (:meth:`~envs.common.game.Game.render_for`); None: the spectator's picture."""
    if render_mode is None:
        gymnasium.logger.warn("You are calling render() without a render_mode; pass render_mode to env().")
        return None
    if state is None:
        raise RuntimeError("call reset() before render()")
    if observer is not None:
        picture = game.render_for(state, observer, "rgb_array" if render_mode == "rgb_array" else "ansi")
        if render_mode != "human":
            return picture
        print(picture)
        return None
    if render_mode == "rgb_array":
        return game.render_rgb(state)
    text = game.render_ansi(state)
    if render_mode == "human":
        print(text)
        return None
    return text


def _jsonable_rng_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """numpy's bit-generator state with numpy ints turned into Python ints (JSON-safe, exact)."""
    return json.loads(json.dumps(state, default=int))


class StandardWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's standard classic-game stack in one layer, with the same semantics.

    ``TerminateIllegalWrapper(illegal_reward=-1)`` + ``AssertOutOfBoundsWrapper`` + ``OrderEnforcingWrapper``
    cost about 50 us a step in attribute forwarding through three layers. This single layer subclasses
    ``OrderEnforcingWrapper`` (so ``agent_iter`` and isinstance checks behave as usual), asserts that the action
    is in the action space, and ends the game with ``illegal_reward`` to the mover (0 to the others, everyone
    terminated and truncated, as PettingZoo's wrapper does) when an action is not in the mover's mask. The hot
    attributes are read straight from the raw env. ``tests/test_conformance.py`` checks it against the stack.
    """

    def __init__(self, env: BarnyardAECEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._raw = env
        self._illegal_reward = float(illegal_reward)
        self._num_actions = env.game.num_actions
        self._terminated_by_illegal = False

    def _check_reset(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agent_selection(self) -> str:
        self._check_reset("agent_selection")
        return self._raw.agent_selection

    @property
    def agents(self) -> list[str]:
        self._check_reset("agents")
        return self._raw.agents

    @property
    def terminations(self) -> dict[str, bool]:
        self._check_reset("terminations")
        return self._raw.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        self._check_reset("truncations")
        return self._raw.truncations

    @property
    def rewards(self) -> dict[str, float]:
        self._check_reset("rewards")
        return self._raw.rewards

    @property
    def infos(self) -> dict[str, dict]:
        self._check_reset("infos")
        return self._raw.infos

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._raw._cumulative_rewards

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._terminated_by_illegal = False
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        if not self._has_reset:
            return super().observe(agent)  # PettingZoo's error for observe before reset
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last`` read straight from the raw env (the same values, without three layers of forwarding)."""
        self._check_reset("agent_selection")
        return self._raw.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            super().step(action)  # PettingZoo's error for step before reset
            return
        raw = self._raw
        if not raw.agents:
            super().step(action)  # PettingZoo's warning for a step after the end
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        if type(action) is int:
            in_space = 0 <= action < self._num_actions
        else:
            in_space = action is not None and raw.action_spaces[agent].contains(action)
        assert (action is None and dead) or in_space, "action is not in action space"
        if dead:
            raw._was_dead_step(action)
        elif not raw.legal_mask()[action]:
            from pettingzoo.utils.env_logger import EnvLogger

            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.agents, 0)
            raw.rewards[agent] = self._illegal_reward
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated_by_illegal = True
        else:
            raw.step(action)


def wrap_standard(raw: BarnyardAECEnv) -> AECEnv:
    """``env()``: the raw env under :class:`StandardWrapper` (PettingZoo's standard stack, one layer)."""
    return StandardWrapper(raw, illegal_reward=-1)


def wrap_pettingzoo_stack(raw: AECEnv) -> AECEnv:
    """PettingZoo's own three-layer standard stack (reference for tests and for users who want it)."""
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    env = wrappers.OrderEnforcingWrapper(env)
    return env
