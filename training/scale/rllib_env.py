"""Every registered Barnyard game as an RLlib multi-agent env (``ray.rllib.env.multi_agent_env.MultiAgentEnv``).

RLlib's ``PettingZooEnv`` wrapper takes an AEC env, but its masked modules want ``{"observations", "action_mask"}``
where PettingZoo says ``observation``, and its catalog builds no network for ``(C, H, W)`` planes. This adapter
reads the game's descriptor and gives RLlib what it expects:

* agents ``player_0 .. player_{n-1}`` (the AEC names); each agent's observation is a dict ``{"observations": the
  game's observation array, "action_mask": int8 legal actions}`` (RLlib's ``ActionMaskingTorchRLModule`` key
  convention, read by :class:`training.scale.rllib_module.BarnyardRLModule` too);
* turn-based games: only the seat to move is in the observation dict of a step; games with simultaneous moves
  (the descriptor's ``parallel``, Boaring's face-down bids): every live agent acts in the same step, over the game's
  PettingZoo Parallel env (``simultaneous=False`` plays them turn by turn instead, the AEC env's commit order);
* rewards: each step's reward for every agent it concerns (Barnyard's rewards are terminal: the game's returns
  on the last step, zero-sum); at the end every agent gets its last observation and ``terminateds`` /
  ``truncateds`` (the engine's ply cap) for all;
* ``scripted``: optional seats played inside the env by scripted policies (``{"fraction": 0.3, "mix":
  "greedy:0.7,random:0.3"}``): in that fraction of games, one seat (drawn each game) is the learner's and every
  other seat plays a policy drawn from the mix; those seats never appear in RLlib's dicts (as ``barnyard train``'s
  ``--opponent-fraction`` / ``--opponent-mix``). Turn-based play only.

* ``score_shaping``: ``barnyard train``'s potential-based shaping (its config field of the same name; with
  ``gamma``, the learner's discount): each agent is paid ``gamma * Phi(s') - Phi(s)`` from its decision in ``s``
  to its next in ``s'``, and ``-Phi(s)`` after its last (``Phi = 0`` once the game is over; at a ply cap the
  potential there, for RLlib to bootstrap on): :mod:`training.shaping`. 0 (the default) pays none.

Config (RLlib's ``env_config``): ``game`` (required), ``options`` (the game's options), ``scripted``,
``score_shaping``, ``gamma``, ``simultaneous``, ``illegal_action`` (``"lose"``, the default: an illegal action ends
the game, -1 to the mover and the others share +1, as PettingZoo's ``TerminateIllegalWrapper`` and Barnyard's
``env()`` do, and as RLlib's env check, which steps with unmasked samples, needs; ``"raise"``: it raises
:class:`~envs.common.game.IllegalActionError` and changes nothing), ``seed`` (the env's first seed).

``register_rllib_env()`` registers the creator with Ray Tune under ``"barnyard"``;
``.environment("barnyard", env_config={"game": "bestiarium"})`` then builds it in every EnvRunner.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

import envs
from envs.common.aec import agent_name
from envs.common.game import ConfigError, IllegalActionError
from envs.common.gym_view import resolve_policy
from training.shaping import relative_potential

OBS_KEY = "observations"
"""RLlib's key of the observation proper inside the dict observation (``Columns.OBS`` of the masking modules)."""
MASK_KEY = "action_mask"
"""RLlib's key of the legal-action mask inside the dict observation."""
ENV_NAME = "barnyard"
"""The name :func:`register_rllib_env` registers with Ray Tune."""
CONFIG_KEYS = ("game", "options", "scripted", "score_shaping", "gamma", "simultaneous", "illegal_action", "seed")


def parse_mix(mix: str | dict[str, float]) -> dict[str, float]:
    """``"greedy:0.7,random:0.3"`` (or a dict) as normalised weights; ValueError naming the bad part."""
    if isinstance(mix, dict):
        items = list(mix.items())
    else:
        items = []
        for part in str(mix).split(","):
            name, sep, weight = part.strip().rpartition(":")
            if not sep or not name:
                raise ValueError(f"scripted mix {mix!r}: each part is 'policy:weight', got {part!r}")
            items.append((name, weight))
    weights: dict[str, float] = {}
    for name, weight in items:
        try:
            w = float(weight)
        except ValueError:
            raise ValueError(f"scripted mix: weight of {name!r} is not a number: {weight!r}") from None
        if not np.isfinite(w) or w < 0:
            raise ValueError(f"scripted mix: weight of {name!r} must be finite and >= 0, got {weight!r}")
        weights[str(name)] = weights.get(str(name), 0.0) + w
    total = sum(weights.values())
    if total <= 0:
        raise ValueError(f"scripted mix {mix!r}: the weights add up to 0")
    return {k: v / total for k, v in weights.items()}


class BarnyardMultiAgentEnv(MultiAgentEnv):
    """A Barnyard game as an RLlib ``MultiAgentEnv`` (module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise ConfigError(f"unknown env_config key(s) {unknown}; allowed: {', '.join(CONFIG_KEYS)}")
        if "game" not in config:
            raise ConfigError(f"env_config needs 'game' (one of {', '.join(envs.GAMES)})")
        self.game_name = str(config["game"])
        info = envs.game_info(self.game_name)
        self.options = dict(config.get("options") or {})
        self.illegal_action = str(config.get("illegal_action", "lose"))
        if self.illegal_action not in ("raise", "lose"):
            raise ConfigError(f"illegal_action={self.illegal_action!r}; allowed: 'raise', 'lose'")
        self.simultaneous = bool(config.get("simultaneous", info.parallel))
        if self.simultaneous and not info.parallel:
            raise ConfigError(f"{self.game_name} has no simultaneous moves (simultaneous=True needs a Parallel env)")
        scripted = dict(config.get("scripted") or {})
        self.scripted_fraction = float(scripted.get("fraction", 0.0))
        if not 0.0 <= self.scripted_fraction <= 1.0:
            raise ConfigError(f"scripted fraction must lie in [0, 1], got {self.scripted_fraction}")
        self.scripted_mix = parse_mix(scripted.get("mix", "random:1")) if self.scripted_fraction > 0 else {}
        self.score_shaping = float(config.get("score_shaping", 0.0))
        self.gamma = float(config.get("gamma", 1.0))
        if not (self.score_shaping >= 0.0 and np.isfinite(self.score_shaping)):
            raise ConfigError(f"score_shaping must be a finite number >= 0, got {config.get('score_shaping')!r}")
        if not 0.0 <= self.gamma <= 1.0:
            raise ConfigError(f"gamma must lie in [0, 1], got {config.get('gamma')!r}")
        if self.scripted_fraction > 0 and self.simultaneous:
            raise ConfigError("scripted seats are played turn by turn: set simultaneous=False to use them")
        public = info.public()
        self._aec = public.raw_env(**self.options)
        self._par = public.parallel_env(**self.options) if self.simultaneous else None
        self.game = self._aec.game
        self.num_players = int(self.game.num_players)
        # Each scripted policy is resolved once (a bad spec fails here, with its reason, not in the first game).
        self._scripted = {
            name: resolve_policy(name, self.game_name, self.options, seed=0) for name in self.scripted_mix
        }
        aec_space = self._aec.observation_space(agent_name(0))["observation"]
        obs_space = spaces.Dict(
            {
                OBS_KEY: aec_space,
                MASK_KEY: spaces.Box(low=0, high=1, shape=(int(self.game.num_actions),), dtype=np.int8),
            }
        )
        self.possible_agents = [agent_name(i) for i in range(self.num_players)]
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(int(self.game.num_actions)) for a in self.possible_agents}
        self.np_random, _ = gymnasium.utils.seeding.np_random(config.get("seed"))
        self._seat_policy: dict[int, Any] = {}
        self._last_obs: dict[str, dict[str, np.ndarray]] = {}
        self._potential_at: dict[str, float] = {}
        """Each agent's shaping potential where it last decided (score shaping only)."""
        """The observations last handed to RLlib: each agent's mask there checks its next action."""
        self._done = True

    # ----- the game ---------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game; ``seed`` re-seeds the env's generator (each game's seed, its scripted seats and their
        policies are drawn from it, so a run is reproducible from its first seed)."""
        if seed is not None:
            self.np_random, _ = gymnasium.utils.seeding.np_random(seed)
        game_seed = int(self.np_random.integers(2**31 - 1))
        self._seat_policy = {}
        if self.scripted_fraction > 0 and self.np_random.random() < self.scripted_fraction:
            learner = int(self.np_random.integers(self.num_players))
            names = list(self.scripted_mix)
            weights = np.array([self.scripted_mix[n] for n in names])
            for seat in range(self.num_players):
                if seat != learner:
                    policy = self._scripted[names[int(self.np_random.choice(len(names), p=weights))]]
                    self._seat_policy[seat] = policy
            for policy in {id(p): p for p in self._seat_policy.values()}.values():
                policy.reset(int(self.np_random.integers(2**31 - 1)))
        self._done = False
        self.agents = list(self.possible_agents)
        self._potential_at = {}
        if self._par is not None:
            observations, _ = self._par.reset(seed=game_seed)
            self._last_obs = {a: self._wrap(o) for a, o in observations.items()}
            self._shape(self._last_obs, self._par.unwrapped.game_state, ended=False)
            return dict(self._last_obs), {}
        self._aec.reset(seed=game_seed)
        self._play_scripted()
        if self._aec_over():
            return self._final({a: 0.0 for a in self.possible_agents})
        self._last_obs = {self._mover(): self._observe(self._mover())}
        self._shape(self._last_obs, self._aec.game_state, ended=False)
        return dict(self._last_obs), {}

    def step(
        self, action_dict: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        if self._done:
            raise IllegalActionError("the game is over; call reset()")
        if self._par is not None:
            return self._step_simultaneous(action_dict)
        mover = self._mover()
        unknown = [a for a in action_dict if a not in self.possible_agents]
        if unknown:
            raise ValueError(f"unknown agent(s) {unknown}; the agents are {', '.join(self.possible_agents)}")
        others = [a for a, act in action_dict.items() if a != mover and act is not None]
        if others or mover not in action_dict:
            raise IllegalActionError(f"only {mover} moves in this step, got actions for {sorted(action_dict)}")
        rewards = {a: 0.0 for a in self.possible_agents}
        action = action_dict[mover]
        if self.illegal_action == "lose" and not self._legal(mover, action):
            return self._forfeit(mover)
        before = self._returns()
        self._aec.step(int(action))
        self._play_scripted()
        after = self._returns()
        for a in self.possible_agents:
            rewards[a] = float(after[a] - before[a])
        if self._aec_over():
            return self._final(rewards)
        mover = self._mover()
        # Every learner seat's reward each step (0 mostly): RLlib wants one for an agent with its next observation.
        learners = {a: r for i, (a, r) in enumerate(rewards.items()) if i not in self._seat_policy}
        self._last_obs = {mover: self._observe(mover)}
        self._shape([mover], self._aec.game_state, ended=False, into=learners)
        return dict(self._last_obs), learners, {"__all__": False}, {"__all__": False}, {}

    # ----- turn-based plumbing ----------------------------------------------------------------------
    def _mover(self) -> str:
        return self._aec.agent_selection

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._wrap(self._aec.observe(agent))

    @staticmethod
    def _wrap(observed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {OBS_KEY: observed["observation"], MASK_KEY: np.asarray(observed["action_mask"], dtype=np.int8)}

    def _aec_over(self) -> bool:
        state = self._aec.game_state
        return bool(self.game.is_terminal(state) or self.game.is_truncated(state))

    def _returns(self) -> dict[str, float]:
        returns = self.game.returns(self._aec.game_state)
        return {a: float(returns[i]) for i, a in enumerate(self.possible_agents)}

    def _shape(self, deciders: Iterable[str], state: Any, ended: bool, into: dict[str, float] | None = None) -> None:
        """Score shaping (module docstring) for the agents in ``deciders``, who decide now in ``state`` (or whose
        game ended there, ``ended``): each is paid ``gamma * Phi(now) - Phi(its last decision)`` into ``into``
        (added to what is there) and ``Phi(now)`` is kept as its next start. ``Phi(now) = 0`` when the game is
        over (not at a ply cap); an agent's first decision is paid nothing."""
        if not self.score_shaping:
            return
        game_over = ended and bool(self.game.is_terminal(state))
        if game_over:
            now = np.zeros(self.num_players)
        else:
            progress = np.asarray(self.game.shaping_potential(state), dtype=np.float64)
            now = relative_potential(progress, self.score_shaping)
        deciding = set(deciders)
        for seat, agent in enumerate(self.possible_agents):
            if agent not in deciding:
                continue
            before = self._potential_at.get(agent)
            if before is not None and into is not None:
                into[agent] = into.get(agent, 0.0) + self.gamma * float(now[seat]) - before
            self._potential_at[agent] = float(now[seat])

    def _legal(self, agent: str, action: Any) -> bool:
        """Whether ``action`` is legal for ``agent`` by the mask RLlib was last given (no second observation)."""
        mask = self._last_obs.get(agent, {}).get(MASK_KEY)
        try:
            a = int(action)
        except (TypeError, ValueError):
            return False
        return mask is not None and 0 <= a < len(mask) and bool(mask[a])

    def _play_scripted(self) -> None:
        """Play the scripted seats until a learner seat must decide or the game ends."""
        while not self._aec_over():
            seat = self._aec.seat_of[self._mover()]
            policy = self._seat_policy.get(seat)
            if policy is None:
                return
            action = int(policy.act(self._aec.decision(self._mover())))
            self._aec.step(action)

    def _final(
        self, rewards: dict[str, float]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """The last step: every learner seat's last observation and reward, and the end flags for all."""
        self._done = True
        truncated = bool(self.game.is_truncated(self._aec.game_state)) and not self.game.is_terminal(
            self._aec.game_state
        )
        learners = [a for i, a in enumerate(self.possible_agents) if i not in self._seat_policy]
        obs = {a: self._observe(a) for a in learners}
        paid = {a: rewards[a] for a in learners}
        self._shape(learners, self._aec.game_state, ended=True, into=paid)
        return (
            obs,
            paid,
            {**{a: not truncated for a in learners}, "__all__": not truncated},
            {**{a: truncated for a in learners}, "__all__": truncated},
            {},
        )

    def _forfeit(
        self, agent: str
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """``illegal_action="lose"``: the mover loses (-1), the others share +1."""
        others = len(self.possible_agents) - 1
        rewards = {a: (-1.0 if a == agent else 1.0 / others) for a in self.possible_agents}
        self._done = True
        learners = [a for i, a in enumerate(self.possible_agents) if i not in self._seat_policy]
        obs = {a: self._observe(a) for a in learners} if self._par is None else dict(self._last_obs)
        paid = {a: rewards[a] for a in learners}
        for a in learners:  # the game is over: Phi = 0, each agent is paid -Phi(its last decision)
            paid[a] -= self._potential_at.pop(a, 0.0)
        return (
            obs,
            paid,
            {**{a: True for a in learners}, "__all__": True},
            {**{a: False for a in learners}, "__all__": False},
            {},
        )

    # ----- simultaneous moves -------------------------------------------------------------------------
    def _step_simultaneous(
        self, action_dict: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        par = self._par
        assert par is not None
        if self.illegal_action == "lose":
            for agent, action in action_dict.items():
                if not self._legal(agent, action):
                    return self._forfeit(agent)
        observations, rewards, terminations, truncations, _ = par.step(
            {a: int(act) for a, act in action_dict.items() if act is not None}
        )
        done = all(terminations.values()) or all(truncations.values())
        obs = {a: self._wrap(o) for a, o in observations.items()}
        self._last_obs = obs
        paid = {a: float(rewards[a]) for a in obs}
        self._shape(obs, par.unwrapped.game_state, ended=done, into=paid)
        if done:
            self._done = True
            truncated = not all(terminations.values())
            return (
                obs,
                paid,
                {**{a: not truncated for a in obs}, "__all__": not truncated},
                {**{a: truncated for a in obs}, "__all__": truncated},
                {},
            )
        return obs, paid, {"__all__": False}, {"__all__": False}, {}


def make_rllib_env(config: dict[str, Any] | None = None) -> BarnyardMultiAgentEnv:
    """The env creator RLlib calls with ``env_config`` (Ray Tune passes an ``EnvContext``, a dict)."""
    return BarnyardMultiAgentEnv(dict(config or {}))


def register_rllib_env(name: str = ENV_NAME) -> str:
    """Register :func:`make_rllib_env` with Ray Tune under ``name``; returns the name for ``.environment()``."""
    from ray.tune.registry import register_env

    register_env(name, make_rllib_env)
    return name
