"""A Gymnasium single-agent view of any Barnyard game: one learner seat, every other seat played by given policies.

This is the door to single-agent RL libraries (Stable-Baselines3 / sb3-contrib ``MaskablePPO``, RLlib through
``register_env``, ...)::

    from envs.common.gym_view import SingleAgentEnv
    env = SingleAgentEnv("bestiarium", learner_seat="random", opponents=["greedy"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))

What the learner gets:

* ``observation_space``: the game's observation ``Box`` (the plain array from the learner's point of view, not
  PettingZoo's ``{"observation", "action_mask"}`` dict); ``action_space``: the game's flat ``Discrete``.
* ``action_masks()``: the learner's legal actions as a bool vector (the method sb3-contrib's ``MaskablePPO``
  calls); ``info["action_mask"]``: the same as int8. Both are all zeros once the game is over.
* ``step(action)`` plays the learner's move, then lets the opponents play until the learner must decide again or
  the game ends. The reward is the learner's reward summed over that whole span (Barnyard's rewards are terminal,
  so it is 0 until the step that ends the game, then the learner's return). ``terminated`` at the end of the
  game; ``truncated`` when the engine's ply cap cuts it short.
* An illegal or out-of-range learner action raises :class:`~envs.common.game.IllegalActionError` (a
  ``ValueError``) and leaves the game untouched: mask the policy with :meth:`SingleAgentEnv.action_masks`.
  With ``illegal_action="lose"`` it ends the game instead, ``illegal_reward`` (-1) to the learner, as ``env()``
  does in the AEC world (for unmasked learners, and for Gymnasium's ``check_env``, which steps with unmasked
  samples). An opponent that returns an illegal action raises :class:`OpponentError` naming it.

Opponents: ``opponents[k]`` sits ``k + 1`` seats after the learner in turn order (the order in which the
observation lists the other players). Give ``num_players - 1`` of them, or one to fill every other seat; each may be
a :class:`~envs.common.policies.Policy` or a spec string: ``"random"``, a scripted baseline of the game
(``"greedy"``, ``"search"``, ``"search:200"``) or a checkpoint path. Other specs go to the resolvers installed
under the ``barnyard.policy_specs`` entry-point group: this package's ``training`` installs
``training.arena.players:make_policy`` there (checkpoints, ``sym:`` and network-guided search specs), so ``envs``
never imports ``training`` (or torch) itself. A single Policy *object* given for
several seats is shared by them; pass strings to get one per seat.

Seeding: ``reset(seed=s)`` re-seeds the view's generator, from which each game draws the env's seed, the
opponents' seeds and (with ``learner_seat="random"``) the learner's seat; resets without a seed continue that
sequence, so a run is reproducible from its first seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

import envs
from envs.common.aec import BarnyardAECEnv, agent_name
from envs.common.game import TERMINAL, ConfigError
from envs.common.policies import Policy, RandomPolicy, baseline_policies, decision_from_state, make_baseline

_MAX_SEED = 2**31 - 1
POLICY_SPEC_GROUP = "barnyard.policy_specs"
"""Entry-point group of ``resolve(spec, game, options, seed=...) -> Policy`` functions for specs beyond the
baselines (installed by this package: ``training.arena.players:make_policy``)."""


class OpponentError(RuntimeError):
    """An opponent policy returned an illegal action or crashed; the message names it."""


def resolve_policy(
    spec: Policy | str, game: str, options: dict[str, Any] | None = None, seed: int | None = None
) -> Policy:
    """A Policy from a Policy (returned as is) or a spec string (``random``, a baseline, a checkpoint path)."""
    if not isinstance(spec, str):
        if not isinstance(spec, Policy):
            raise TypeError(f"opponent {spec!r} is neither a Policy (name, reset, act) nor a spec string")
        return spec
    if spec == "random":
        return RandomPolicy(seed)
    baseline = make_baseline(game, spec, options, seed)
    if baseline is not None:
        return baseline
    # A checkpoint path (or an unknown name: the resolver's error lists the choices), through the installed
    # resolvers: envs names no module of training, the dependency points one way.
    resolvers = entry_points(group=POLICY_SPEC_GROUP)
    if not resolvers:
        names = ", ".join(sorted(baseline_policies(game))) or "none"
        raise ValueError(
            f"policy spec {spec!r}: not 'random' or a baseline of {game} ({names}), and no "
            f"'{POLICY_SPEC_GROUP}' resolver is installed "
            "(pip install -e '.[train]' provides checkpoints)"
        )
    return next(iter(resolvers)).load()(spec, game, options, seed=seed)


class SingleAgentEnv(gymnasium.Env):
    """One seat of a Barnyard game as a Gymnasium env; the other seats are played by ``opponents``."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}
    observation_space: spaces.Box
    action_space: spaces.Discrete

    def __init__(
        self,
        game: str,
        options: dict[str, Any] | None = None,
        learner_seat: int | str = 0,
        opponents: Sequence[Policy | str] | Policy | str | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
    ):
        if illegal_action not in ("raise", "lose"):
            raise ConfigError(f"illegal_action={illegal_action!r} is not valid; allowed: 'raise', 'lose'")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.game_id = game
        self.options = dict(options or {})
        self.aec: BarnyardAECEnv = envs.module(game).raw_env(render_mode=render_mode, **self.options)
        self.game = self.aec.game
        self.render_mode = render_mode
        n = self.game.num_players
        if learner_seat != "random" and not (
            isinstance(learner_seat, (int, np.integer)) and not isinstance(learner_seat, bool) and 0 <= learner_seat < n
        ):
            raise ConfigError(f"learner_seat={learner_seat!r} is not valid; allowed: 'random' or 0..{n - 1}")
        self.learner_seat_option = learner_seat
        specs: list[Policy | str]
        if opponents is None:
            specs = ["random"]
        elif isinstance(opponents, str) or not isinstance(opponents, Sequence):
            specs = [opponents]
        else:
            specs = list(opponents)
        if len(specs) == 1:
            specs = specs * (n - 1)
        if len(specs) != n - 1:
            raise ConfigError(
                f"{game} with these options has {n} seats: give {n - 1} opponents or one, not {len(specs)}"
            )
        self.opponent_specs = specs
        self.opponents: list[Policy] = [resolve_policy(s, game, self.options) for s in self.opponent_specs]
        self.observation_space = self.aec.observation_spaces[agent_name(0)]["observation"]
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.learner_seat = 0 if learner_seat == "random" else int(learner_seat)
        self._policy_at: dict[int, Policy] = {}
        self._done = True
        if seed is not None:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)

    # ----- Gymnasium API ------------------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game (seeded from the view's generator) and play the opponents up to the learner's first turn."""
        super().reset(seed=seed)
        rng = self.np_random
        n = self.game.num_players
        for _ in range(100):
            if self.learner_seat_option == "random":
                self.learner_seat = int(rng.integers(n))
            self._policy_at = {(self.learner_seat + 1 + k) % n: p for k, p in enumerate(self.opponents)}
            for p in self.opponents:
                p.reset(int(rng.integers(_MAX_SEED)))
            self.aec.reset(seed=int(rng.integers(_MAX_SEED)))
            self._done = False
            reward, terminated, truncated = self._play_opponents()
            if not (terminated or truncated):
                break
            # The game ended before the learner had a move (possible only in degenerate set-ups): deal again.
        else:
            raise RuntimeError(f"{self.game_id}: 100 games in a row ended before the learner's first move")
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner's move, then the opponents' until the learner's next decision; reward summed over the span."""
        if self._done:
            raise RuntimeError("the game is over: call reset()")
        me = agent_name(self.learner_seat)
        if self.illegal_action == "lose":
            legal = (
                (isinstance(action, (int, np.integer)) or (isinstance(action, np.ndarray) and action.shape == ()))
                and 0 <= int(action) < self.game.num_actions
                and bool(self.aec.legal_mask()[int(action)])
            )
            if not legal:
                self._done = True
                info = self._info()
                info["illegal_action"] = True
                return self._observation(), self.illegal_reward, True, False, info
        self.aec.step(action)  # IllegalActionError before any change
        reward = float(self.aec.rewards[me])
        terminated, truncated = self._status()
        if not (terminated or truncated):
            more, terminated, truncated = self._play_opponents()
            reward += more
        self._done = terminated or truncated
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool vector (all False when the game is over)."""
        if self._done:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.aec.legal_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]  # gymnasium's RenderFrame is unbound
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ----- internals ----------------------------------------------------------------------------------------------
    def _status(self) -> tuple[bool, bool]:
        me = agent_name(self.learner_seat)
        return bool(self.aec.terminations[me]), bool(self.aec.truncations[me])

    def _play_opponents(self) -> tuple[float, bool, bool]:
        """Opponents move until the learner is to move or the game stops; the learner's reward meanwhile."""
        aec, game, me = self.aec, self.game, agent_name(self.learner_seat)
        reward = 0.0
        while True:
            terminated, truncated = self._status()
            if terminated or truncated:
                self._done = True
                return reward, terminated, truncated
            seat = game.current_player(aec.game_state)
            if seat == self.learner_seat:
                return reward, False, False
            assert seat != TERMINAL
            policy = self._policy_at[seat]
            decision = decision_from_state(game, aec.game_state, seat)
            try:
                action = policy.act(decision)
            except Exception as err:  # noqa: BLE001 - reported with the policy's name
                raise OpponentError(f"opponent {policy.name!r} at seat {seat} crashed: {err!r}") from err
            if not (
                isinstance(action, (int, np.integer))
                and 0 <= action < game.num_actions
                and decision.action_mask[action]
            ):
                raise OpponentError(f"opponent {policy.name!r} at seat {seat} returned illegal action {action!r}")
            aec.step(int(action))
            reward += float(aec.rewards[me])

    def _observation(self) -> np.ndarray:
        return self.game.observation(self.aec.game_state, self.learner_seat)

    def _info(self) -> dict[str, Any]:
        mask = self.action_masks().view(np.int8)
        info: dict[str, Any] = {"action_mask": mask, "learner_seat": self.learner_seat}
        if self._done and self.game.is_terminal(self.aec.game_state):
            info["returns"] = self.game.returns(self.aec.game_state).tolist()  # every seat's terminal return
        return info


class MaskInObservation(gymnasium.ObservationWrapper):
    """A :class:`SingleAgentEnv` whose observation is ``{obs_key: observation, mask_key: float32 mask}``.

    For libraries that read the action mask from the observation rather than from ``action_masks()``: RLlib's
    action-masking RLModule expects exactly the default keys (``"observations"``, ``"action_mask"``) and a float
    mask. ``flatten=True`` flattens the observation to a vector (RLlib's default encoders build a CNN for rank-3
    boxes only for a few image sizes; an MLP over the flat vector works for every game).
    """

    env: SingleAgentEnv

    def __init__(
        self, env: SingleAgentEnv, obs_key: str = "observations", mask_key: str = "action_mask", flatten: bool = False
    ):
        super().__init__(env)
        inner = env.observation_space
        if flatten:
            inner = spaces.Box(
                low=np.broadcast_to(inner.low, inner.shape).reshape(-1),
                high=np.broadcast_to(inner.high, inner.shape).reshape(-1),
                dtype=inner.dtype,  # type: ignore[arg-type]  # Box takes a numpy dtype (its stub says a type)
            )
        self.obs_key, self.mask_key, self.flatten = obs_key, mask_key, flatten
        n = int(env.action_space.n)
        self.observation_space = spaces.Dict(
            {obs_key: inner, mask_key: spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32)}
        )

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        if self.flatten:
            observation = observation.reshape(-1)
        return {self.obs_key: observation, self.mask_key: self.action_masks().astype(np.float32)}

    def action_masks(self) -> np.ndarray:
        """The wrapped view's bool mask (so sb3-contrib works through this wrapper too)."""
        return self.env.action_masks()
