"""PPO's self-play rollouts with per-seat credit assignment and opponent mixing (the scripted opponents and the
evaluation games are :mod:`training.run.opponents`).

How a batch is collected
    ``num_envs`` raw envs are stepped in lockstep. In each env, every seat has a *controller*: the learner (the
    network being trained), a snapshot (a past copy of it from the pool), or a scripted policy (random,
    greedy). Most games are pure self-play (every seat is the learner, each from its own point of view); a
    fraction ``opponent_fraction`` of games seat the learner once against opponents of one kind.

    A group of envs plays the scripted seats itself and stops each env at a decision of a network seat, then
    reports all of them at once (:class:`Report`): one batched forward pass per network answers every env of the
    group. A :class:`GameSlots` group is a list of raw AEC envs on the reference engine (``rules.py``); a
    :class:`BatchedSlots` group is the rows of one state of the game's compiled batched engine
    (``envs/<game>/fast.py``, config ``engine``). Both give the same reports, so everything below is one code
    path. With ``num_workers`` > 0 each group lives in a worker process, and while one group steps its envs the
    main process runs the network for the other.

Credit assignment (the :class:`SelfPlayCollector`)
    Each learner seat keeps one *pending* transition (its last decision). Every reward the env pays that seat
    (``env.rewards`` after every step, whoever moved, terminal rewards included) is added to it, until the seat
    decides again - then the pending transition is complete with ``next_value`` = the value of the new decision -
    or the game ends - then it is complete with ``done``. A game cut by a ply cap (PettingZoo's truncation) did
    not end: each pending transition is completed with ``done`` false and ``next_value`` = the value of that
    seat's observation at the cut, so the learner bootstraps there. Rewards paid to a seat before its first
    decision of a game belong to no decision and are dropped. Opponent seats' transitions are never trained on.

Score shaping (``score_shaping`` > 0)
    Each seat has a potential ``Phi = score_shaping * (its progress - the others' mean)`` (progress:
    ``Game.shaping_potential``), 0 once the game is over. A transition from the seat's decision in position ``s``
    to its next decision in ``s'`` is paid ``gamma * Phi(s') - Phi(s)`` on top of the env's rewards (``Phi(s')``
    = 0 when the game ended; at a cut, the potential there), which is Ng, Harada & Russell's potential-based
    shaping over the seat's own sequence of decisions: the discounted shaping of a game sums to
    ``-Phi(first decision)`` exactly, so the shaping moves credit to the moves that scored without changing
    which policy is best.
"""

from __future__ import annotations

import base64
import copy
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from envs.common.fastrng import seed_states
from envs.common.game import TERMINAL
from envs.common.policies import Decision, Policy
from envs.common.vector import batched_game_class, sample_legal
from training.config import TrainConfig
from training.distribution import LegalActions, masked_policy
from training.ppo.buffer import RolloutBuffer, Transition, pack_masks, unpack_masks
from training.run.opponents import POLICY, SCRIPTED_KINDS, available_kinds, make_scripted, outcome
from training.workers import PipeWorker, usable_cores, use_one_core

LEARNER = "learner"
SNAPSHOT = "snapshot"
NETWORK_KINDS = (LEARNER, SNAPSHOT)


def parse_mix(text: str, game: str) -> dict[str, float]:
    """``"snapshot:0.6,random:0.2,greedy:0.2"`` -> normalised weights of the kinds this game offers."""
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, w = part.partition(":")
        if kind not in (SNAPSHOT, *SCRIPTED_KINDS):
            raise ValueError(f"opponent_mix: unknown kind {kind!r}; allowed: snapshot, random, greedy, policy")
        weights[kind] = float(w) if w else 1.0
    weights = {k: w for k, w in weights.items() if w > 0 and k in available_kinds(game, [k])}
    total = sum(weights.values())
    if total <= 0:
        return {SNAPSHOT: 1.0}
    return {k: w / total for k, w in weights.items()}


ENGINES = ("auto", "reference", "batched")


def resolve_engine(game: str, engine: str) -> str:
    """``reference`` or ``batched`` for config ``engine`` (``auto``: batched where ``envs/<game>/fast.py``
    exists); ValueError for an unknown name or ``batched`` on a game without a batched engine."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not valid; allowed: {', '.join(repr(e) for e in ENGINES)}")
    if engine == "reference":
        return engine
    has_batched = batched_game_class(game) is not None
    if engine == "batched" and not has_batched:
        raise ValueError(
            f"engine='batched': {game} has no batched engine (envs/{game}/fast.py); use 'reference' or 'auto'"
        )
    return "batched" if has_batched else "reference"


def resolve_workers(num_workers: int, engine: str, cores: int | None = None) -> int:
    """Config ``num_workers``: -1 chooses by machine (2 env workers where it has 2 or more usable cores, else
    0: the envs in this process), whatever the ``engine``; ``cores`` overrides the machine's count (tests)."""
    if num_workers >= 0:
        return int(num_workers)
    if num_workers != -1:
        raise ValueError(f"num_workers={num_workers}; allowed: -1 (by machine) or an integer >= 0")
    return 2 if (usable_cores() if cores is None else cores) >= 2 else 0


# ----- a group of envs in one process ---------------------------------------------------------------------
@dataclass
class Cut:
    """A game cut by a ply cap: what every seat saw and its shaping potential at the cut."""

    obs: np.ndarray
    """``(n, *shape)``: each seat's observation at the cut."""
    potential: np.ndarray
    """``(n,)``: each seat's shaping potential at the cut (0 without shaping)."""


@dataclass
class Report:
    """Every env of a group at a network seat's decision, and what happened since the last report."""

    seats: np.ndarray
    """Seat to decide, per env."""
    kinds: list[str]
    """Its controller: ``learner`` or ``snapshot``."""
    obs: np.ndarray
    """Observations ``(E, *shape)`` from the deciding seat's point of view."""
    packed: np.ndarray
    """Legal-action masks, bit-packed: ``(E, ceil(A / 8))`` uint8 (``np.packbits(..., axis=1)``; a worker sends an
    eighth of the bytes, and the rollout buffer keeps them so)."""
    potential: np.ndarray
    """``(E,)``: the deciding seat's shaping potential in the position it decides in (0 without shaping)."""
    rewards: np.ndarray
    """``(E, n)``: rewards paid to each seat since the last report, in the game that was running then (up to its
    end if it ended)."""
    ended: np.ndarray
    """Per env: the game running at the last report has ended (a new one is running now)."""
    new_controllers: list[list[str] | None]
    """Per env: the seat controllers of a game that began since the last report, else None."""
    cuts: list[Cut | None]
    """Per env: where the game running at the last report was cut by a ply cap (it ended without a result),
    else None."""
    episodes: list[dict[str, Any]] = field(default_factory=list)
    """Finished games: ``{"env", "returns", "length", "controllers", "truncated"}`` (``env`` local index)."""
    num_actions: int = 0
    """Actions in the action space (the masks' width)."""
    actions: np.ndarray | None = None
    """With ``policy_in_workers``: the action chosen for every env's network seat (``(E,)`` int64), else None."""
    logps: np.ndarray | None = None
    """With ``policy_in_workers``: the learner rows' log-probabilities of their actions (``(E,)``; 0 elsewhere)."""
    values: np.ndarray | None = None
    """With ``policy_in_workers``: the learner rows' values (``(E,)``; 0 elsewhere)."""
    version: int = -1
    """With ``policy_in_workers``: the learner weights' version that chose ``actions`` (-1: none chose them)."""

    @property
    def masks(self) -> np.ndarray:
        """Legal-action masks ``(E, A)`` bool (unpacked)."""
        return unpack_masks(self.packed, self.num_actions)


def relative_potential(progress: np.ndarray, score_shaping: float) -> np.ndarray:
    """``score_shaping * (my progress - mean of the others')`` per seat, over the last axis of ``progress``."""
    n = progress.shape[-1]
    others = (progress.sum(axis=-1, keepdims=True) - progress) / max(1, n - 1)
    return score_shaping * (progress - others)


class _Slots:
    """What both kinds of env group share: seat-controller draws, reward accumulators and the report's events."""

    def __init__(
        self,
        game: str,
        num_players: int,
        seeds: list[int],
        opponent_fraction: float,
        opponent_mix: dict[str, float] | None,
        score_shaping: float,
    ):
        self.game_name = game
        self.n = num_players
        self.seeds = [int(s) for s in seeds]
        self.num_envs = len(self.seeds)
        self.rngs = [np.random.default_rng([s, 1]) for s in self.seeds]
        """Per env: draws of the seat controllers and of the scripted policies' per-game seeds."""
        self.opponent_fraction = float(opponent_fraction)
        mix = opponent_mix or {SNAPSHOT: 1.0}
        self.mix_kinds = list(mix)
        self.mix_weights = np.array([mix[k] for k in self.mix_kinds], dtype=np.float64)
        self.controllers: list[list[str]] = [[LEARNER] * self.n for _ in seeds]
        self.acc = np.zeros((self.num_envs, self.n))
        self.ep_return = np.zeros((self.num_envs, self.n))
        self.score_shaping = float(score_shaping)
        self._clear_events()

    def _clear_events(self) -> None:
        e = self.num_envs
        self.ev_rewards = np.zeros((e, self.n))
        self.ev_ended = np.zeros(e, dtype=bool)
        self.ev_new: list[list[str] | None] = [None] * e
        self.ev_cuts: list[Cut | None] = [None] * e
        self.ev_episodes: list[dict[str, Any]] = []

    def report(self) -> Report:
        """The current decisions and the events since the last report (clears the reward accumulators)."""
        self.ev_rewards = np.where(self.ev_ended[:, None], self.ev_rewards, self.acc)
        self.acc[:] = 0.0
        return self._build_report()

    def _build_report(self) -> Report:
        raise NotImplementedError

    def _draw_controllers(self, i: int) -> tuple[list[str], int | None]:
        """Env ``i``'s new game: its seat controllers (recorded as an event) and, when its opponents are scripted,
        their seed for this game."""
        rng = self.rngs[i]
        controllers = [LEARNER] * self.n
        seed = None
        if self.opponent_fraction > 0 and rng.random() < self.opponent_fraction:
            kind = self.mix_kinds[int(rng.choice(len(self.mix_kinds), p=self.mix_weights))]
            controllers = [kind] * self.n
            controllers[int(rng.integers(self.n))] = LEARNER
            if kind in SCRIPTED_KINDS:
                seed = int(rng.integers(2**31))
        self.controllers[i] = controllers
        self.ev_new[i] = controllers
        self.acc[i] = 0.0
        self.ep_return[i] = 0.0
        return controllers, seed

    def _end_game(self, i: int, truncated: bool, length: int, cut: Any = None) -> None:
        """Record the end of env ``i``'s game (its rewards are in ``acc``); ``cut``: a callable giving the
        :class:`Cut` of a truncated game (called only when this is the first game of ``i`` to end since the
        last report)."""
        if not self.ev_ended[i]:
            self.ev_ended[i] = True
            self.ev_rewards[i] = self.acc[i]
            if truncated:
                self.ev_cuts[i] = cut()
        self.ev_episodes.append(
            {
                "env": i,
                "returns": self.ep_return[i].tolist(),
                "length": int(length),
                "controllers": list(self.controllers[i]),
                "truncated": truncated,
            }
        )

    def _common_state(self) -> dict[str, Any]:
        return {
            "rngs": [rng.bit_generator.state for rng in self.rngs],
            "controllers": self.controllers,
            "acc": self.acc.tolist(),
            "ep_return": self.ep_return.tolist(),
            "ev_rewards": self.ev_rewards.tolist(),
            "ev_ended": self.ev_ended.tolist(),
            "ev_new": self.ev_new,
            "ev_episodes": self.ev_episodes,
            "ev_cuts": [
                None
                if c is None
                else {"obs": c.obs.tolist(), "dtype": c.obs.dtype.name, "potential": c.potential.tolist()}
                for c in self.ev_cuts
            ],
        }

    def _set_common_state(self, state: dict[str, Any]) -> None:
        for rng, s in zip(self.rngs, state["rngs"]):
            rng.bit_generator.state = s
        self.controllers = [list(c) for c in state["controllers"]]
        self.acc = np.array(state["acc"], dtype=np.float64)
        self.ep_return = np.array(state["ep_return"], dtype=np.float64)
        self.ev_rewards = np.array(state["ev_rewards"], dtype=np.float64)
        self.ev_ended = np.array(state["ev_ended"], dtype=bool)
        self.ev_new = [None if c is None else list(c) for c in state["ev_new"]]
        self.ev_episodes = list(state["ev_episodes"])
        self.ev_cuts = [
            None if c is None else Cut(np.array(c["obs"], dtype=c["dtype"]), np.array(c["potential"], dtype=np.float64))
            for c in state.get("ev_cuts", [None] * self.num_envs)
        ]


class GameSlots(_Slots):
    """Envs of one group, each a raw AEC env on the reference engine (``rules.py``): scripted seats are played
    here; each env stops at a network seat's decision."""

    def __init__(
        self,
        game: str,
        options: dict[str, Any],
        seeds: list[int],
        opponent_fraction: float = 0.0,
        opponent_mix: dict[str, float] | None = None,
        score_shaping: float = 0.0,
        opponent_policy: str = "",
        make_env: Any = None,
    ):
        """``opponent_policy``: the spec of the ``policy`` opponent kind (config ``opponent_policy``)."""
        make_env = make_env or envs.module(game).raw_env
        self.opponent_policy = opponent_policy
        self.envs = [make_env(**options) for _ in seeds]
        self.game = self.envs[0].game
        self.policies: list[dict[str, Policy]] = [{} for _ in seeds]
        super().__init__(game, self.game.num_players, seeds, opponent_fraction, opponent_mix, score_shaping)

    # ----- commands -----------------------------------------------------------------------------------
    def reset(self, _: Any = None) -> Report:
        """Start every env (seeded) and play to the first network decisions."""
        self._clear_events()
        for i, env in enumerate(self.envs):
            env.reset(seed=self.seeds[i])
            self._begin(i)
            self._advance(i)
        return self.report()

    def step(self, actions: Any) -> Report:
        """Play one action per env (for the seat of the last report), then on to the next network decisions."""
        self._clear_events()
        for i, action in enumerate(actions):
            self._play(i, int(action))
            self._advance(i)
        return self.report()

    def _build_report(self) -> Report:
        seats, kinds, obs, masks, potential = [], [], [], [], []
        for i, env in enumerate(self.envs):
            agent = env.agent_selection
            seat = env._seat_of[agent]
            seen = env.observe(agent)
            seats.append(seat)
            kinds.append(self.controllers[i][seat])
            obs.append(seen["observation"])
            masks.append(seen["action_mask"])
            potential.append(self._potential(env)[seat] if kinds[-1] == LEARNER else 0.0)
        return Report(
            np.array(seats),
            kinds,
            np.stack(obs),
            pack_masks(np.stack(masks)),
            np.array(potential, dtype=np.float64),
            self.ev_rewards.copy(),
            self.ev_ended.copy(),
            list(self.ev_new),
            list(self.ev_cuts),
            list(self.ev_episodes),
            self.game.num_actions,
        )

    # ----- inner workings -------------------------------------------------------------------------------
    def _begin(self, i: int) -> None:
        """Draw the seat controllers of env ``i``'s new game."""
        controllers, seed = self._draw_controllers(i)
        if seed is not None:
            kind = next(c for c in controllers if c != LEARNER)
            if kind not in self.policies[i]:
                self.policies[i][kind] = make_scripted(
                    self.game_name, kind, engine=self.game, spec=self.opponent_policy
                )
            self.policies[i][kind].reset(seed)

    def _potential(self, env: Any) -> np.ndarray:
        """Shaping potential per seat: ``score_shaping * (my progress - mean of the others')``, progress being
        ``Game.shaping_potential`` (the running score unless the game defines better); 0 once the game is over
        (a game cut by a ply cap is not over: its potential stays)."""
        if not self.score_shaping or not env.agents or all(env.terminations.values()):
            return np.zeros(self.n)
        return relative_potential(
            np.asarray(self.game.shaping_potential(env.game_state), dtype=np.float64), self.score_shaping
        )

    def _play(self, i: int, action: int) -> None:
        env = self.envs[i]
        env.step(action)
        rewards = env.rewards
        for seat, agent in enumerate(env.possible_agents):
            r = rewards.get(agent, 0.0)
            if r:
                self.acc[i, seat] += r
                self.ep_return[i, seat] += r

    def _advance(self, i: int) -> None:
        """Play scripted seats and restart finished games until a network seat is to decide."""
        env = self.envs[i]
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                truncated = bool(env.truncations[agent] and not env.terminations[agent])
                self._end_game(
                    i,
                    truncated,
                    env.num_plies,
                    lambda: Cut(
                        np.stack([env.observe(a)["observation"] for a in env.possible_agents]), self._potential(env)
                    ),
                )
                env.reset()  # the env's generator runs on: a new, different game
                self._begin(i)
                continue
            seat = env._seat_of[agent]
            kind = self.controllers[i][seat]
            if kind in NETWORK_KINDS:
                return
            seen = env.observe(agent)
            decision = Decision(
                self.game,
                seat,
                self.game.information_state(env.game_state, seat),
                seen["observation"],
                seen["action_mask"],
            )
            self._play(i, int(self.policies[i][kind].act(decision)))

    # ----- exact state, for --resume ----------------------------------------------------------------------
    def get_state(self, _: Any = None) -> dict[str, Any]:
        """A JSON-safe picture of the group (envs, generators, controllers, pending events)."""
        policies = []
        for per_env in self.policies:
            states = {}
            for kind, policy in per_env.items():
                rng = getattr(policy, "rng", None)
                states[kind] = rng.bit_generator.state if isinstance(rng, np.random.Generator) else None
            policies.append(states)
        state = {
            "engine": "reference",
            "envs": [env.snapshot() for env in self.envs],
            "policies": policies,
            **self._common_state(),
        }
        return json.loads(json.dumps(state, default=int))

    def set_state(self, state: dict[str, Any]) -> Report:
        """Restore :meth:`get_state`'s picture; returns the report that was pending then."""
        check_engine_state(state, "reference")
        for env, snap in zip(self.envs, state["envs"]):
            env.restore(snap)
        for i, states in enumerate(state["policies"]):
            for kind, rng_state in states.items():
                if kind not in self.policies[i]:
                    self.policies[i][kind] = make_scripted(
                        self.game_name, kind, engine=self.game, spec=self.opponent_policy
                    )
                policy = self.policies[i][kind]
                if rng_state is not None:
                    _rng_of(policy).bit_generator.state = rng_state
        self._set_common_state(state)
        return self._build_report()

    def close(self, _: Any = None) -> None:
        for env in self.envs:
            env.close()


def _rng_of(policy: Policy) -> np.random.Generator:
    """The seeded generator of a scripted policy (``random`` and ``greedy`` keep one; a run saves its state)."""
    rng = getattr(policy, "rng", None)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"policy {policy.name!r} has no seeded generator to save or restore")
    return rng


def check_engine_state(state: dict[str, Any], engine: str) -> None:
    """ValueError unless a saved group ``state`` was collected on ``engine`` (``reference`` or ``batched``)."""
    saved = state.get("engine", "reference")
    if saved != engine:
        raise ValueError(
            f"the saved collector ran on the {saved} engine, this one on the {engine} engine: "
            f"resume with --engine {saved}"
        )


KIND_CODES = {LEARNER: 0, SNAPSHOT: 1, "random": 2, "greedy": 3}
"""Seat controllers as small ints in :class:`BatchedSlots`' ``(E, n)`` table (>= 2: scripted)."""


def _encode_array(a: np.ndarray) -> dict[str, Any]:
    """An array as JSON-safe, exact data (dtype, shape, base64 of the bytes)."""
    a = np.ascontiguousarray(a)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode("ascii")}


def _decode_array(d: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(d["data"]), dtype=np.dtype(d["dtype"])).reshape(d["shape"]).copy()


class BatchedSlots(_Slots):
    """Envs of one group as rows of one :class:`~envs.common.vector.BatchedGame` state (``envs/<game>/fast.py``),
    with :class:`GameSlots`' behaviour and reports: scripted seats are played here, every env stops at a
    network seat's decision, each env's games come from its own seed.

    The engine is driven directly (not through ``VectorEnv``), so that an ended game can be observed from every
    seat and its potentials read before its row restarts. Scripted seats: ``random`` draws uniformly from the
    legal mask with a compiled sampler (:func:`~envs.common.vector.sample_legal`) on a SplitMix64 generator per
    env, seeded per game as :class:`GameSlots` seeds its ``RandomPolicy``; ``greedy`` is the engine's compiled
    greedy (:meth:`~envs.common.vector.BatchedGame.greedy_actions`, on a SplitMix64 generator per env seeded per
    game alike) where the engine has one, else the game's ``GreedyPolicy`` on the row as a reference state
    (:meth:`~envs.common.vector.BatchedGame.to_reference`): exact and slow. Chance comes from each row's generator,
    so the games are not those :class:`GameSlots` deals from the same seeds.
    """

    def __init__(
        self,
        game: str,
        options: dict[str, Any],
        seeds: list[int],
        opponent_fraction: float = 0.0,
        opponent_mix: dict[str, float] | None = None,
        score_shaping: float = 0.0,
        opponent_policy: str = "",
        make_engine: Any = None,
    ):
        """``make_engine``: a factory ``(**options) -> BatchedGame`` to use instead of the game's (tests).
        ``opponent_policy`` must be empty: the ``policy`` kind plays on the reference engine only."""
        if POLICY in (opponent_mix or {}) or opponent_policy:
            raise ValueError("the 'policy' opponent kind plays on the reference engine only: set engine 'reference'")
        if make_engine is None:
            make_engine = batched_game_class(game)
            if make_engine is None:
                raise ValueError(f"{game} has no batched engine (envs/{game}/fast.py); use engine 'reference'")
        self.engine = make_engine(**options)
        self.options = dict(options)
        super().__init__(game, self.engine.num_players, seeds, opponent_fraction, opponent_mix, score_shaping)
        e, eng = self.num_envs, self.engine
        self.state = eng.new_state(e)
        self.kind_codes = np.zeros((e, self.n), dtype=np.int8)
        self.random_rng = np.zeros(e, dtype=np.uint64)
        """Per env: the generator of its ``random`` seats in the current game."""
        self.compiled_greedy = bool(getattr(eng, "has_greedy_actions", False))  # a BatchedGame or a test's stand-in
        """Greedy seats play the engine's compiled ``greedy_actions`` (else the Python ``GreedyPolicy``)."""
        self.greedy_rng = np.zeros(e, dtype=np.uint64)
        """Per env: the generator of its compiled ``greedy`` seats in the current game."""
        self.greedy: list[Policy | None] = [None] * e
        self.plies = np.zeros(e, dtype=np.int64)
        """Per env: plies played in the current game (an episode's ``length``)."""
        self._reference_game: Any = None
        self._rows = np.arange(e)
        self._mask = np.zeros((e, eng.num_actions), dtype=bool)
        self._obs = np.zeros((e, *eng.observation_shape), dtype=np.float32)

    @property
    def reference_game(self) -> Any:
        """The reference engine's ``Game`` with these options (for the greedy policy's decisions)."""
        if self._reference_game is None:
            self._reference_game = envs.make_game(self.game_name, **self.options)
        return self._reference_game

    # ----- commands -----------------------------------------------------------------------------------
    def reset(self, _: Any = None) -> Report:
        """Start every env (seeded) and play to the first network decisions."""
        self._clear_events()
        for i, seed in enumerate(self.seeds):
            self.state.rng[i] = seed_states(seed, 1)[0]
        self.engine.reset_rows(self.state, self._rows)
        self.plies[:] = 0
        for i in range(self.num_envs):
            self._begin(i)
        self._advance()
        return self.report()

    def step(self, actions: Any) -> Report:
        """Play one action per env (for the seat of the last report), then on to the next network decisions."""
        self._clear_events()
        self.engine.apply(self.state, np.asarray(actions, dtype=np.int64))
        self.plies += 1
        self._advance()
        return self.report()

    def _build_report(self) -> Report:
        eng, state = self.engine, self.state
        seats = eng.current_player(state).astype(np.int64)
        eng.legal_mask(state, self._mask)
        eng.observe(state, seats, self._obs)
        codes = self.kind_codes[self._rows, seats]
        potential = np.zeros(self.num_envs, dtype=np.float64)
        if self.score_shaping:
            learner = codes == KIND_CODES[LEARNER]
            potential[learner] = self._potentials(state)[self._rows, seats][learner]
        kinds = [self.controllers[i][seat] for i, seat in enumerate(seats.tolist())]
        return Report(
            seats,
            kinds,
            self._obs.copy(),
            pack_masks(self._mask),
            potential,
            self.ev_rewards.copy(),
            self.ev_ended.copy(),
            list(self.ev_new),
            list(self.ev_cuts),
            list(self.ev_episodes),
            eng.num_actions,
        )

    # ----- inner workings -------------------------------------------------------------------------------
    def _begin(self, i: int) -> None:
        """Draw the seat controllers of env ``i``'s new game (its row has just been reset)."""
        controllers, seed = self._draw_controllers(i)
        self.kind_codes[i] = [KIND_CODES[c] for c in controllers]
        self.plies[i] = 0
        if seed is None:
            return
        if "random" in controllers:
            self.random_rng[i] = seed_states(seed, 1)[0]
        elif self.compiled_greedy:
            self.greedy_rng[i] = seed_states(seed, 1)[0]
        else:
            policy = self.greedy[i]
            if policy is None:
                policy = self.greedy[i] = make_scripted(self.game_name, "greedy", engine=self.reference_game)
            policy.reset(seed)

    def _potentials(self, state: Any) -> np.ndarray:
        """``(rows, n)`` shaping potentials of live games (:meth:`GameSlots._potential`)."""
        return relative_potential(
            np.asarray(self.engine.shaping_potential(state), dtype=np.float64), self.score_shaping
        )

    def _advance(self) -> None:
        """Play scripted seats and restart finished games until every env has a network seat to decide."""
        eng, state = self.engine, self.state
        while True:
            seats = eng.current_player(state)
            over = seats == TERMINAL
            cut = ~over & eng.truncated(state)
            if over.any() or cut.any():
                self._finish(np.flatnonzero(over | cut), over, cut)
                continue
            scripted = np.flatnonzero(self.kind_codes[self._rows, seats] >= KIND_CODES["random"])
            if scripted.size == 0:
                return
            self._play_scripted(scripted, seats[scripted].astype(np.int64))

    def _finish(self, rows: np.ndarray, over: np.ndarray, cut: np.ndarray) -> None:
        """Close the games of ``rows`` (ended or cut), then start new ones there."""
        eng, state = self.engine, self.state
        returns = np.asarray(eng.returns(state), dtype=np.float64)
        cuts: dict[int, Cut] = {}
        cut_rows = np.flatnonzero(cut)
        if cut_rows.size:  # every seat's view and the potentials at the cut, before the rows restart
            every = np.repeat(cut_rows, self.n)
            views = np.empty((every.size, *eng.observation_shape), dtype=np.float32)
            eng.observe(eng.take(state, every), np.tile(np.arange(self.n), cut_rows.size), views)
            potential = self._potentials(state)[cut_rows] if self.score_shaping else np.zeros((cut_rows.size, self.n))
            for k, i in enumerate(cut_rows.tolist()):
                cuts[i] = Cut(views[k * self.n : (k + 1) * self.n], potential[k])
        for i in rows.tolist():
            if over[i]:
                self.acc[i] += returns[i]
                self.ep_return[i] += returns[i]
            self._end_game(i, bool(cut[i]), self.plies[i], lambda i=i: cuts[i])
        eng.reset_rows(state, rows)  # each row's generator runs on: a new, different game
        for i in rows.tolist():
            self._begin(i)

    def _play_scripted(self, rows: np.ndarray, seats: np.ndarray) -> None:
        """One move of the scripted seat to move in each of ``rows``."""
        eng = self.engine
        whole = rows.size == self.num_envs
        sub = self.state if whole else eng.take(self.state, rows)
        mask = self._mask[: rows.size]
        eng.legal_mask(sub, mask)
        actions = np.empty(rows.size, dtype=np.int64)
        codes = self.kind_codes[rows, seats]
        randoms = np.flatnonzero(codes == KIND_CODES["random"])
        if randoms.size:
            rng = self.random_rng[rows[randoms]]
            chosen = np.empty(randoms.size, dtype=np.int64)
            sample_legal(np.ascontiguousarray(mask[randoms]), rng, chosen)
            self.random_rng[rows[randoms]] = rng
            actions[randoms] = chosen
        greedy = np.flatnonzero(codes == KIND_CODES["greedy"])
        if greedy.size and self.compiled_greedy:
            rng = self.greedy_rng[rows[greedy]]
            chosen = np.empty(greedy.size, dtype=np.int64)
            eng.greedy_actions(sub if greedy.size == rows.size else eng.take(sub, greedy), rng, chosen)
            self.greedy_rng[rows[greedy]] = rng
            actions[greedy] = chosen
        elif greedy.size:
            game = self.reference_game
            views = np.empty((greedy.size, *eng.observation_shape), dtype=np.float32)
            eng.observe(eng.take(sub, greedy), seats[greedy], views)
            for k, j in enumerate(greedy.tolist()):
                seat = int(seats[j])
                reference = eng.to_reference(sub, j)
                decision = Decision(
                    game, seat, game.information_state(reference, seat), views[k], mask[j].view(np.int8).copy()
                )
                policy = self.greedy[int(rows[j])]
                assert policy is not None, "_begin gave the env's greedy seats their policy"
                actions[j] = policy.act(decision)
        eng.apply(sub, actions)
        if not whole:
            eng.put(self.state, rows, sub)
        self.plies[rows] += 1

    # ----- exact state, for --resume ----------------------------------------------------------------------
    def get_state(self, _: Any = None) -> dict[str, Any]:
        """A JSON-safe picture of the group (the engine's state arrays, generators, controllers, events)."""
        state = {
            "engine": "batched",
            "arrays": {name: _encode_array(a) for name, a in zip(self.state._fields, self.state)},
            "random_rng": _encode_array(self.random_rng),
            "greedy_rng": _encode_array(self.greedy_rng),
            "plies": self.plies.tolist(),
            "kind_codes": self.kind_codes.tolist(),
            "greedy": [None if p is None else _rng_of(p).bit_generator.state for p in self.greedy],
            **self._common_state(),
        }
        return json.loads(json.dumps(state, default=int))

    def set_state(self, state: dict[str, Any]) -> Report:
        """Restore :meth:`get_state`'s picture; returns the report that was pending then."""
        check_engine_state(state, "batched")
        arrays = state["arrays"]
        if sorted(arrays) != sorted(self.state._fields):
            raise ValueError(
                f"saved engine state has fields {sorted(arrays)}, this engine {sorted(self.state._fields)}"
            )
        for name, target in zip(self.state._fields, self.state):
            saved = _decode_array(arrays[name])
            if saved.shape != target.shape or saved.dtype != target.dtype:
                raise ValueError(
                    f"saved engine field {name!r} is {saved.dtype}{saved.shape}, expected {target.dtype}{target.shape}"
                )
            target[...] = saved
        self.random_rng[:] = _decode_array(state["random_rng"])
        if "greedy_rng" in state:
            self.greedy_rng[:] = _decode_array(state["greedy_rng"])
        else:  # saved before the compiled greedy (its greedy seats were Python policies): a generator per env
            self.greedy_rng[:] = [np.random.SeedSequence([s, 3]).generate_state(1, np.uint64)[0] for s in self.seeds]
        self.plies[:] = state["plies"]
        self.kind_codes[:] = state["kind_codes"]
        for i, rng_state in enumerate(state["greedy"]):
            if rng_state is None:
                self.greedy[i] = None
                continue
            policy = self.greedy[i] = make_scripted(self.game_name, "greedy", engine=self.reference_game)
            _rng_of(policy).bit_generator.state = rng_state
        self._set_common_state(state)
        return self._build_report()

    def close(self, _: Any = None) -> None:
        pass


def make_slots(engine: str, args: tuple, **hooks: Any) -> GameSlots | BatchedSlots:
    """The env group for ``engine`` (``reference`` or ``batched``) over :class:`GameSlots`' arguments ``args``."""
    return BatchedSlots(*args, **hooks) if engine == "batched" else GameSlots(*args, **hooks)


class LocalHandle:
    """A :class:`GameSlots` in this process, behind the same send/recv interface as a worker."""

    def __init__(self, slots: GameSlots | BatchedSlots):
        self.slots = slots
        self._answer: Any = None

    def send(self, command: str, data: Any = None) -> None:
        self._answer = getattr(self.slots, command)(data)

    def recv(self) -> Any:
        answer, self._answer = self._answer, None
        return answer

    def close(self) -> None:
        self.slots.close()


def frozen_copy(net: nn.Module, weights: dict[str, torch.Tensor] | None = None) -> nn.Module:
    """A copy of ``net`` for the snapshot pool (with ``weights`` loaded, when given): eval mode, no gradients."""
    frozen = copy.deepcopy(net).eval()
    if weights is not None:
        frozen.load_state_dict(weights)
    for p in frozen.parameters():
        p.requires_grad_(False)
    return frozen


@torch.no_grad()
def choose_actions(
    net: nn.Module, snapshot_net: Any, report: Report, snapshot_ids: list[int], generator: torch.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(actions, log-probabilities, values)`` of a report's network seats, ``(E,)`` each: the learner's rows
    sampled from ``net`` in one pass (with their log-probabilities and values; 0 in the other rows), then the
    snapshot rows from ``snapshot_net(snapshot_ids[j])``, one pass per snapshot in id order; every draw from
    ``generator``, the learner's first."""
    e = len(report.kinds)
    actions = np.zeros(e, dtype=np.int64)
    logps = np.zeros(e, dtype=np.float64)
    values = np.zeros(e, dtype=np.float64)
    learner = [j for j, kind in enumerate(report.kinds) if kind == LEARNER]
    if learner:
        dist, value_t = masked_policy(
            net,
            torch.from_numpy(report.obs[learner]),
            LegalActions.from_packed(report.packed[learner], report.num_actions),
        )
        sampled = dist.sample(generator)
        actions[learner] = sampled.cpu().numpy()
        logps[learner] = dist.log_prob(sampled).cpu().numpy()
        values[learner] = value_t.cpu().numpy()
    by_snapshot: dict[int, list[int]] = {}
    for j, kind in enumerate(report.kinds):
        if kind == SNAPSHOT:
            by_snapshot.setdefault(snapshot_ids[j], []).append(j)
    for snap_id, rows in sorted(by_snapshot.items()):
        dist, _ = masked_policy(
            snapshot_net(snap_id),
            torch.from_numpy(report.obs[rows]),
            LegalActions.from_packed(report.packed[rows], report.num_actions),
        )
        actions[rows] = dist.sample(generator).cpu().numpy()
    return actions, logps, values


def _numpy_weights(net: nn.Module) -> dict[str, np.ndarray]:
    """A network's weights as numpy copies: a message to a worker (a tensor in a message would move the learner's
    own storage into shared memory)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}


def _load_numpy_weights(net: nn.Module, weights: dict[str, np.ndarray]) -> None:
    net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})


class PolicyActor:
    """The learner's network and the snapshot pool in an env worker (config ``policy_in_workers``): chooses the
    network seats' actions of its group's reports, with its own seeded generators."""

    def __init__(self, game: str, options: dict[str, Any], spec: dict[str, Any], seed: int):
        from training.networks import build_network

        self.net = build_network(spec, envs.make_game(game, **options))
        self.version = -1
        self.pool: dict[int, nn.Module] = {}
        self.generator = torch.Generator().manual_seed(int(seed))
        self.rng = np.random.default_rng([int(seed), 4])
        self.snapshot_of: dict[int, int] = {}
        """Per local env: the snapshot its current game's snapshot seats play."""
        self.report: Report | None = None
        """The report last answered (acted on again when the weights change)."""

    def update(self, data: tuple) -> None:
        """``(version, weights, new snapshots [(id, weights)], snapshot ids to keep)`` from the collector."""
        version, weights, snapshots, keep = data
        _load_numpy_weights(self.net, weights)
        self.version = int(version)
        for snap_id, snap_weights in snapshots:
            self.pool[int(snap_id)] = frozen_copy(self.net, {k: torch.from_numpy(v) for k, v in snap_weights.items()})
        for snap_id in list(self.pool):
            if snap_id not in keep:
                del self.pool[snap_id]

    def act(self, report: Report, new: bool) -> Report:
        """Choose the network seats' actions of ``report`` (``new``: a report not acted on before, whose new games
        draw their snapshot here)."""
        self.report = report
        if self.version < 0:
            return report  # no weights yet: the collector sends them and asks again
        if new:
            for j, controllers in enumerate(report.new_controllers):
                if controllers is not None and SNAPSHOT in controllers and self.pool:
                    ids = sorted(self.pool)
                    self.snapshot_of[j] = ids[int(self.rng.integers(len(ids)))]
        snapshot_ids = [self.snapshot_of.get(j, -1) for j in range(len(report.kinds))]
        actions, logps, values = choose_actions(self.net, self._snapshot, report, snapshot_ids, self.generator)
        report.actions, report.logps, report.values, report.version = actions, logps, values, self.version
        return report

    def _snapshot(self, snap_id: int) -> nn.Module:
        return self.pool.get(snap_id) or self.pool[min(self.pool)]

    def get_state(self) -> dict[str, Any]:
        return {
            "generator": base64.b64encode(self.generator.get_state().numpy().tobytes()).decode("ascii"),
            "rng": self.rng.bit_generator.state,
            "snapshot_of": {str(k): v for k, v in self.snapshot_of.items()},
        }

    def set_state(self, state: dict[str, Any]) -> None:
        raw = np.frombuffer(base64.b64decode(state["generator"]), dtype=np.uint8).copy()
        self.generator.set_state(torch.from_numpy(raw))
        self.rng.bit_generator.state = state["rng"]
        self.snapshot_of = {int(k): int(v) for k, v in state["snapshot_of"].items()}
        self.version = -1  # the collector sends the weights and the pool again


def _worker(conn: Any, engine: str, args: tuple, shared_obs: torch.Tensor, actor_args: tuple | None = None) -> None:
    """Worker process: serve commands on a :func:`make_slots` group until ``close``. A report's observations go
    into ``shared_obs`` (shared memory) instead of through the pipe. With ``actor_args`` (``policy_in_workers``)
    a :class:`PolicyActor` chooses the network seats' actions of every report; ``act`` sends it new weights and
    asks again for the last report."""
    use_one_core()
    slots = make_slots(engine, args)
    actor = PolicyActor(*actor_args) if actor_args is not None else None
    obs_out = shared_obs.numpy()
    try:
        while True:
            command, data = conn.recv()
            if command == "close":
                break
            if command == "act":
                assert actor is not None and actor.report is not None
                actor.update(data)
                answer = actor.act(actor.report, new=False)
            elif command == "set_state" and actor is not None:
                if "actor" in data:
                    actor.set_state(data["actor"])
                else:  # saved without the policy in the workers: the actor starts afresh, the weights come again
                    actor.version = -1
                answer = actor.act(slots.set_state(data), new=False)
            else:
                answer = getattr(slots, command)(data)
                if actor is not None and isinstance(answer, Report):
                    answer = actor.act(answer, new=True)
                elif actor is not None and command == "get_state":
                    answer["actor"] = actor.get_state()
            if isinstance(answer, Report):
                obs_out[...] = answer.obs
                answer = copy.copy(answer)  # the actor keeps its report whole
                answer.obs = None  # type: ignore[assignment]  # the handle puts the shared view back
            conn.send(answer)
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        conn.close()


class RemoteHandle(PipeWorker):
    """An env group in a worker process; ``send`` returns at once, ``recv`` waits for the answer.

    A report's observations (Bestiarium: 430 kB for 16 envs) come through shared memory, not the pipe: pickling
    them and pushing them through the pipe's 64 kB buffer took about 40% of a Bestiarium rollout. The report
    holds a view of that memory, which the worker rewrites at its next report: it is valid until the next
    :meth:`send` (the collector copies out the rows it keeps before it sends the next step). ``actor_args``:
    ``(game, options, network spec, seed)`` of the worker's :class:`PolicyActor` (``policy_in_workers``)."""

    def __init__(self, engine: str, args: tuple, actor_args: tuple | None = None):
        game = envs.make_game(args[0], **args[1])
        dtype = torch.from_numpy(np.zeros(0, dtype=game.observation_dtype)).dtype
        shared = torch.zeros((len(args[2]), *game.observation_shape), dtype=dtype).share_memory_()
        self._obs = shared.numpy()
        super().__init__(_worker, (engine, args, shared, actor_args))

    def recv(self) -> Any:
        answer = super().recv()
        if isinstance(answer, Report) and answer.obs is None:
            answer.obs = self._obs
        return answer


# ----- the collector: networks, credit assignment, opponent pool ----------------------------------------
class SelfPlayCollector:
    """Runs the envs, the learner and the snapshot pool; fills a :class:`RolloutBuffer` with complete
    transitions credited per seat."""

    def __init__(
        self,
        config: TrainConfig,
        net: nn.Module,
        generator: torch.Generator,
        make_env: Any = None,
        make_engine: Any = None,
        engine: str | None = None,
    ):
        """``make_env`` / ``make_engine``: a raw-env / batched-engine factory to use instead of the game's (tests;
        in-process groups only; ``make_env`` implies the reference engine, ``make_engine`` the batched one).
        ``engine``: ``reference`` or ``batched``, instead of what ``config.engine`` resolves to (a resumed run
        keeps the engine it was saved with)."""
        self.config = config
        self.net = net
        self.generator = generator
        self.game_name = config.game
        if make_env is not None:
            self.engine = "reference"
        elif make_engine is not None:
            self.engine = "batched"
        else:
            self.engine = engine or resolve_engine(config.game, config.engine)
        hooks = {"make_env": make_env} if make_env is not None else {}
        if make_engine is not None:
            hooks = {"make_engine": make_engine}
        seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(config.seed).spawn(config.num_envs)]
        mix = parse_mix(config.opponent_mix, config.game)
        opponent_policy = getattr(config, "opponent_policy", "") if POLICY in mix else ""
        if POLICY in mix:
            # a frozen policy is asked one decision at a time on a reference state: the reference engine
            if self.engine == "batched" and engine is None and make_engine is None and config.engine == "auto":
                self.engine = "reference"
            # a bad spec fails here, with its message, rather than in a worker
            make_scripted(
                config.game,
                POLICY,
                seed=0,
                engine=envs.make_game(config.game, **config.env_options),
                spec=opponent_policy,
            )
        self.num_workers = resolve_workers(config.num_workers, self.engine)
        self.policy_in_workers = (
            bool(getattr(config, "policy_in_workers", False)) and self.num_workers > 0 and not (make_env or make_engine)
        )
        """The workers choose the network seats' actions (config ``policy_in_workers``; with workers only)."""
        groups = max(1, self.num_workers)
        self.group_envs = [list(range(config.num_envs))[g::groups] for g in range(groups)]
        self.handles: list[Any] = []
        for ids in self.group_envs:
            args = (
                config.game,
                dict(config.env_options),
                [seeds[i] for i in ids],
                config.opponent_fraction,
                mix,
                config.score_shaping,
                opponent_policy,
            )
            if self.num_workers > 0 and not hooks:
                actor_args = None
                if self.policy_in_workers:
                    from training.networks import network_spec

                    game = envs.make_game(config.game, **config.env_options)
                    actor_seed = int(np.random.SeedSequence([config.seed, 5, len(self.handles)]).generate_state(1)[0])
                    actor_args = (config.game, dict(config.env_options), network_spec(config, game), actor_seed)
                self.handles.append(RemoteHandle(self.engine, args, actor_args))
            else:
                self.handles.append(LocalHandle(make_slots(self.engine, args, **hooks)))
        self.version = 0
        """The learner weights' version (``policy_in_workers``): one more at every collection."""
        self.sent_version = [-1] * groups
        self.sent_snapshots: list[set[int]] = [set() for _ in range(groups)]
        self.ready: list[Report | None] = [None] * groups
        self.in_flight = [False] * groups
        self.started = False
        self.rng = np.random.default_rng([config.seed, 2])
        self.pending: dict[tuple[int, int], Transition] = {}
        self.controllers: list[list[str]] = [[] for _ in range(config.num_envs)]
        self.snapshot_of: list[int] = [0] * config.num_envs
        self.pool: dict[int, nn.Module] = {}
        self.next_snapshot_id = 0
        self.results: dict[str, deque] = {k: deque(maxlen=200) for k in (SNAPSHOT, *SCRIPTED_KINDS)}
        """Recent training-game outcomes of the learner (1 win, 0.5 shared first, 0 loss) per opponent kind."""
        self.lengths: deque = deque(maxlen=200)
        self.episodes = 0
        self.add_snapshot(net)

    # ----- the pool -------------------------------------------------------------------------------------
    def add_snapshot(self, net: nn.Module) -> None:
        """Freeze a copy of ``net`` into the opponent pool (dropping the oldest beyond ``pool_size``)."""
        self.pool[self.next_snapshot_id] = frozen_copy(net)
        self.next_snapshot_id += 1
        while len(self.pool) > max(1, self.config.pool_size):
            del self.pool[min(self.pool)]

    def _snapshot(self, snap_id: int) -> nn.Module:
        return self.pool.get(snap_id) or self.pool[min(self.pool)]

    # ----- collection -------------------------------------------------------------------------------------
    def _receive(self, g: int) -> Report:
        report = self.ready[g]
        if report is not None:
            self.ready[g] = None
        else:
            self.in_flight[g] = False
            report = self.handles[g].recv()
        if self.policy_in_workers and report.version != self.version:
            # chosen with older weights (the step that ran during the update), or none: choose again with these
            handle = self.handles[g]
            new = [(i, _numpy_weights(net)) for i, net in self.pool.items() if i not in self.sent_snapshots[g]]
            handle.send("act", (self.version, _numpy_weights(self.net), new, set(self.pool)))
            self.sent_snapshots[g] = set(self.pool)
            self.sent_version[g] = self.version
            report = handle.recv()
        return report

    def collect(self, buffer: RolloutBuffer, target: int) -> None:
        """Step the envs until ``buffer`` holds at least ``target`` complete learner transitions.

        Each group's last step stays in flight (with workers, it runs during the update)."""
        self.version += 1  # the weights may have changed since the last collection
        if not self.started:
            for handle in self.handles:
                handle.send("reset")
            for g, handle in enumerate(self.handles):
                self.ready[g] = handle.recv()
            self.started = True
        while len(buffer) < target:
            for g, handle in enumerate(self.handles):
                actions = self.process(self.group_envs[g], self._receive(g), buffer)
                handle.send("step", actions)
                self.in_flight[g] = True

    def sync(self) -> None:
        """Receive every in-flight step (before saving the state)."""
        for g, handle in enumerate(self.handles):
            if self.in_flight[g]:
                self.ready[g] = handle.recv()
                self.in_flight[g] = False

    @torch.no_grad()
    def process(self, env_ids: list[int], report: Report, buffer: RolloutBuffer) -> np.ndarray:
        """Credit the report's rewards, close finished games, and choose every env's next action."""
        n = report.rewards.shape[1]
        gamma = self.config.gamma
        cut_rows: list[tuple[tuple[int, int], Transition, np.ndarray]] = []
        # only envs with news: rewards paid, a game ended or begun (adding a 0 reward changes nothing)
        news = report.rewards.any(axis=1) | report.ended
        news[[j for j, c in enumerate(report.new_controllers) if c is not None]] = True
        for j in np.flatnonzero(news).tolist():
            i = env_ids[j]
            for seat in range(n):
                pending = self.pending.get((i, seat))
                if pending is not None:
                    pending.reward += float(report.rewards[j, seat])
            if report.ended[j]:
                cut = report.cuts[j]
                for seat in range(n):
                    pending = self.pending.pop((i, seat), None)
                    if pending is None:
                        continue
                    if cut is None:  # the game ended: the potential after it is 0
                        pending.reward -= pending.potential
                        pending.done, pending.next_value = True, 0.0
                        buffer.add((i, seat), pending)
                    else:  # cut by a ply cap: bootstrap on the value at the cut, keep the potential
                        pending.reward += gamma * float(cut.potential[seat]) - pending.potential
                        pending.cut = True
                        cut_rows.append(((i, seat), pending, cut.obs[seat]))
            new_controllers = report.new_controllers[j]
            if new_controllers is not None:
                self.controllers[i] = new_controllers
                if SNAPSHOT in self.controllers[i]:
                    ids = sorted(self.pool)
                    self.snapshot_of[i] = ids[int(self.rng.integers(len(ids)))]
        for episode in report.episodes:
            self._record(episode)
        if cut_rows:
            cut_obs = torch.from_numpy(np.stack([r[2] for r in cut_rows]))
            _, cut_values, _ = self.net.scores(cut_obs)  # type: ignore[operator]  # nn.Module attributes are untyped
            for (key, pending, _), value in zip(cut_rows, cut_values.tolist()):
                pending.next_value = float(value)
                buffer.add(key, pending)

        if report.actions is not None:  # the worker chose them (policy_in_workers)
            chosen, logps, values = report.actions, report.logps, report.values
        else:
            snapshot_ids = [self.snapshot_of[i] for i in env_ids]
            chosen, logps, values = choose_actions(self.net, self._snapshot, report, snapshot_ids, self.generator)
        assert logps is not None and values is not None
        learner = [j for j, kind in enumerate(report.kinds) if kind == LEARNER]
        obs, packed = report.obs[learner], report.packed[learner]  # copies: the worker rewrites its report
        seats, potentials = report.seats[learner].tolist(), report.potential[learner].tolist()
        for k, j in enumerate(learner):
            key = (env_ids[j], seats[k])
            value, potential = float(values[j]), potentials[k]
            previous = self.pending.pop(key, None)
            if previous is not None:
                previous.reward += gamma * potential - previous.potential
                previous.next_value = value
                buffer.add(key, previous)
            action, logp = int(chosen[j]), float(logps[j])
            self.pending[key] = Transition(obs[k], packed[k], action, logp, value, potential=potential)
        return chosen.copy()

    def _record(self, episode: dict[str, Any]) -> None:
        self.episodes += 1
        self.lengths.append(episode["length"])
        controllers = episode["controllers"]
        others = {c for c in controllers if c != LEARNER}
        if len(others) == 1:
            kind = others.pop()
            seat = controllers.index(LEARNER)
            self.results[kind].append(outcome(np.array(episode["returns"]), seat))

    def win_rates(self) -> dict[str, float]:
        """Recent training-game scores of the learner per opponent kind (kinds with games only)."""
        return {k: float(np.mean(v)) for k, v in self.results.items() if v}

    # ----- exact state, for --resume ----------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue collection exactly (call between updates)."""
        self.sync()
        groups = []
        for handle in self.handles:
            handle.send("get_state")
            groups.append(handle.recv())
        pending = [
            {
                "env": i,
                "seat": s,
                "obs": torch.from_numpy(t.obs.copy()),
                "mask": torch.from_numpy(t.packed_mask.copy()),
                "action": t.action,
                "logp": t.logp,
                "value": t.value,
                "reward": t.reward,
                "potential": t.potential,
            }
            for (i, s), t in self.pending.items()
        ]
        return {
            "engine": self.engine,
            "groups": json.dumps(groups),
            "started": self.started,
            "pending": pending,
            "controllers": json.dumps(self.controllers),
            "snapshot_of": list(self.snapshot_of),
            "pool": {int(k): v.state_dict() for k, v in self.pool.items()},
            "next_snapshot_id": self.next_snapshot_id,
            "rng": json.dumps(self.rng.bit_generator.state, default=int),
            "results": json.dumps({k: list(v) for k, v in self.results.items()}),
            "lengths": list(self.lengths),
            "episodes": self.episodes,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Inverse of :meth:`state_dict`; ValueError for a state collected on the other engine."""
        check_engine_state(state, self.engine)
        self.started = bool(state["started"])
        self.sent_version = [-1] * len(self.handles)  # the workers get the weights and the pool again
        self.sent_snapshots = [set() for _ in self.handles]
        if self.started:
            for g, (handle, group_state) in enumerate(zip(self.handles, json.loads(state["groups"]))):
                handle.send("set_state", group_state)
                self.ready[g] = handle.recv()
                self.in_flight[g] = False
        self.pending = {}
        for p in state["pending"]:
            self.pending[(int(p["env"]), int(p["seat"]))] = Transition(
                p["obs"].numpy(),
                p["mask"].numpy(),
                int(p["action"]),
                float(p["logp"]),
                float(p["value"]),
                float(p["reward"]),
                potential=float(p.get("potential", 0.0)),
            )
        self.controllers = json.loads(state["controllers"])
        self.snapshot_of = [int(s) for s in state["snapshot_of"]]
        self.pool = {}
        for snap_id, weights in state["pool"].items():
            self.pool[int(snap_id)] = frozen_copy(self.net, weights)
        self.next_snapshot_id = int(state["next_snapshot_id"])
        self.rng.bit_generator.state = json.loads(state["rng"])
        for k, v in json.loads(state["results"]).items():
            self.results[k] = deque(v, maxlen=200)
        self.lengths = deque(state["lengths"], maxlen=200)
        self.episodes = int(state["episodes"])

    def close(self) -> None:
        for handle in self.handles:
            handle.close()
