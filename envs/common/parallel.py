"""``parallel_env()``'s wrapper: PettingZoo's illegal-move convention, which ``env()`` follows for the AEC envs,
for a Parallel env whose observations carry an ``action_mask``."""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import BaseParallelWrapper


class TerminateIllegalParallelWrapper(BaseParallelWrapper):
    """What ``TerminateIllegalWrapper`` (``env()``) does in the AEC envs, for one parallel step: an action that is
    in the action space but not in its agent's mask ends the game, with ``illegal_reward`` to each agent that sent
    one and 0 to the others, every agent terminated and truncated (as PettingZoo's wrapper sets them), ``agents``
    empty; the game itself does not change. A client that samples actions without the mask (PettingZoo's
    ``parallel_seed_test``) gets a finished game, as from ``env()``, instead of an exception.

    An action outside the action space is an AssertionError, as ``AssertOutOfBoundsWrapper`` makes it; a missing
    action and an unknown agent are the wrapped env's errors, before any change (they are not moves)."""

    def __init__(self, env: ParallelEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._illegal_reward = float(illegal_reward)
        self._observations: dict[str, Any] = {}
        """The last observations returned: their masks say what each agent may send."""

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        observations, infos = self.env.reset(seed=seed, options=options)
        self._observations = observations
        return observations, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict, dict, dict]:
        agents = list(self.env.agents)
        if agents and isinstance(actions, dict) and all(agent in agents for agent in actions):
            illegal = []
            for agent, action in actions.items():
                if action is None:
                    continue
                assert self.env.action_space(agent).contains(action), "action is not in action space"
                if not np.asarray(self._observations[agent]["action_mask"])[int(action)]:
                    illegal.append(agent)
            if illegal:
                EnvLogger.warn_on_illegal_move()
                self.env.unwrapped.agents = []
                rewards = {agent: self._illegal_reward if agent in illegal else 0.0 for agent in agents}
                done = dict.fromkeys(agents, True)
                return self._observations, rewards, done, dict(done), {agent: {} for agent in agents}
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        self._observations = observations
        return observations, rewards, terminations, truncations, infos


def wrap_parallel_standard(raw: ParallelEnv) -> ParallelEnv:
    """``parallel_env()``: the raw Parallel env under :class:`TerminateIllegalParallelWrapper` (-1 to a mover whose
    action is not in its mask), as ``env()`` wraps the AEC env."""
    return TerminateIllegalParallelWrapper(raw, illegal_reward=-1)
