"""Groups of envs that play to the network's decisions: the reports a collector reads, on either rule engine.

A group of envs plays the scripted seats itself and stops each env at a decision of a network seat (the learner or
a snapshot), then reports all of them at once (:class:`Report`: arrays over the group's envs, and the per-game
events since the last report). A :class:`GameSlots` group is a list of raw AEC envs on the reference engine
(``rules.py``); a :class:`~training.ppo.batched_slots.BatchedSlots` group is the rows of one state of the game's
compiled batched engine (``envs/<game>/fast.py``, config ``engine``). Both give the same reports, so the collector
(:mod:`training.ppo.collect`) has one code path. The groups hold no network: the learner's seats are answered by
the collector (or by a worker's actor, :mod:`training.ppo.envworkers`).

Each report carries the deciding seat's shaping potential (config ``score_shaping``: ``Phi = score_shaping * (its
progress - the others' mean)``, :func:`~training.shaping.relative_potential`) and the env's rewards unshaped: the
shaping is paid by the credit assignment (:mod:`training.ppo.credit`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import envs
from envs.common.policies import Policy
from envs.common.vector import batched_game_class
from training.ppo.buffer import pack_masks, unpack_masks
from training.ppo.mix import KIND_CODES, KIND_NAMES, LEARNER, NETWORK_KINDS, ControllerDraws
from training.run.opponents import make_scripted
from training.shaping import relative_potential

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
    codes: np.ndarray
    """Its controller, per env: ``KIND_CODES[learner]`` or ``KIND_CODES[snapshot]`` (int8, :mod:`training.ppo.mix`)."""
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
    fresh: np.ndarray
    """Per env: a game began since the last report (``new_controllers`` is not None there)."""
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
    def kinds(self) -> list[str]:
        """The deciding seats' controllers by name (reading and tests; the collector reads ``codes``)."""
        return [KIND_NAMES[int(c)] for c in self.codes]

    @property
    def masks(self) -> np.ndarray:
        """Legal-action masks ``(E, A)`` bool (unpacked)."""
        return unpack_masks(self.packed, self.num_actions)


_REPORT_ARRAYS = ("seats", "codes", "obs", "packed", "potential", "rewards", "ended", "fresh")
_REPORT_ANSWERS = ("actions", "logps", "values")


def report_state(report: Report) -> dict[str, Any]:
    """A report as tensors, numbers and JSON text (what ``torch.load(..., weights_only=True)`` reads back): the
    collector's queued reports in a resume file."""
    import torch

    def tensor(a: np.ndarray) -> Any:
        return torch.from_numpy(np.ascontiguousarray(a).copy())

    return {
        **{k: tensor(getattr(report, k)) for k in _REPORT_ARRAYS},
        **{k: tensor(getattr(report, k)) for k in _REPORT_ANSWERS if getattr(report, k) is not None},
        "new_controllers": json.dumps(report.new_controllers),
        "cuts": [None if c is None else {"obs": tensor(c.obs), "potential": tensor(c.potential)} for c in report.cuts],
        "episodes": json.dumps(report.episodes, default=lambda o: o.tolist() if hasattr(o, "tolist") else int(o)),
        "num_actions": int(report.num_actions),
        "version": int(report.version),
    }


def report_from_state(state: dict[str, Any]) -> Report:
    """Inverse of :func:`report_state`."""
    arrays = {k: state[k].numpy() for k in _REPORT_ARRAYS}
    answers = {k: state[k].numpy() for k in _REPORT_ANSWERS if k in state}
    return Report(
        **arrays,
        new_controllers=json.loads(state["new_controllers"]),
        cuts=[None if c is None else Cut(c["obs"].numpy(), c["potential"].numpy()) for c in state["cuts"]],
        episodes=json.loads(state["episodes"]),
        num_actions=int(state["num_actions"]),
        version=int(state["version"]),
        **answers,
    )


class Slots:
    """What both kinds of env group share (the base of :class:`GameSlots` here and of
    ``training.ppo.batched_slots.BatchedSlots``): seat-controller draws, reward accumulators and the report's
    events."""

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
        self.draws = ControllerDraws(self.seeds, num_players, opponent_fraction, opponent_mix)
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
        self.ev_fresh = np.zeros(e, dtype=bool)
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
        controllers, seed = self.draws.draw(i)
        self.controllers[i] = controllers
        self.ev_new[i] = controllers
        self.ev_fresh[i] = True
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
            "rngs": [rng.bit_generator.state for rng in self.draws.rngs],
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
        for rng, s in zip(self.draws.rngs, state["rngs"]):
            rng.bit_generator.state = s
        self.controllers = [list(c) for c in state["controllers"]]
        self.acc = np.array(state["acc"], dtype=np.float64)
        self.ep_return = np.array(state["ep_return"], dtype=np.float64)
        self.ev_rewards = np.array(state["ev_rewards"], dtype=np.float64)
        self.ev_ended = np.array(state["ev_ended"], dtype=bool)
        self.ev_new = [None if c is None else list(c) for c in state["ev_new"]]
        self.ev_fresh = np.array([c is not None for c in self.ev_new], dtype=bool)
        self.ev_episodes = list(state["ev_episodes"])
        self.ev_cuts = [
            None if c is None else Cut(np.array(c["obs"], dtype=c["dtype"]), np.array(c["potential"], dtype=np.float64))
            for c in state.get("ev_cuts", [None] * self.num_envs)
        ]


class GameSlots(Slots):
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
        seats, codes, obs, masks, potential = [], [], [], [], []
        for i, env in enumerate(self.envs):
            agent = env.agent_selection
            seat = env.seat_of[agent]
            seen = env.observe(agent)
            seats.append(seat)
            kind = self.controllers[i][seat]
            codes.append(KIND_CODES[kind])
            obs.append(seen["observation"])
            masks.append(seen["action_mask"])
            potential.append(self._potential(env)[seat] if kind == LEARNER else 0.0)
        return Report(
            np.array(seats),
            np.array(codes, dtype=np.int8),
            np.stack(obs),
            pack_masks(np.stack(masks)),
            np.array(potential, dtype=np.float64),
            self.ev_rewards.copy(),
            self.ev_ended.copy(),
            list(self.ev_new),
            self.ev_fresh.copy(),
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
            seat = env.seat_of[agent]
            kind = self.controllers[i][seat]
            if kind in NETWORK_KINDS:
                return
            self._play(i, int(self.policies[i][kind].act(env.decision(agent))))

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
                    rng_of(policy).bit_generator.state = rng_state
        self._set_common_state(state)
        return self._build_report()

    def close(self, _: Any = None) -> None:
        for env in self.envs:
            env.close()


def rng_of(policy: Policy) -> np.random.Generator:
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
