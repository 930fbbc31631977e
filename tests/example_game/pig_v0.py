"""Pig, the public module: ``env()`` (standard wrappers), ``raw_env`` and ``vector_env`` (the batched, compiled
engine). Spec: ``pig/env.py``."""

from typing import Any

from pettingzoo import AECEnv
from pig.env import __doc__ as __doc__  # noqa: F401  (the spec page)
from pig.env import raw_env

from envs.common.aec import wrap_standard
from envs.common.vector import VectorEnv

__all__ = ["env", "raw_env", "vector_env"]


def env(**kwargs: Any) -> AECEnv:
    """Pig with PettingZoo's standard wrappers (an illegal move ends the game, -1 to the mover)."""
    return wrap_standard(raw_env(**kwargs))


def vector_env(num_envs: int, **options: Any) -> VectorEnv:
    """``num_envs`` Pig games stepped together by the compiled engine (``pig/fast.py``).

    Same options as ``env()`` (``target``) and the same observation and action encodings, with identical values;
    observations from the mover's point of view (``info["current_player"]``), ``info["action_mask"]`` bool,
    rewards ``(num_envs, 2)`` paid at the end, same-step auto-reset with ``info["final_obs"]``. Each game's dice
    come from its own SplitMix64 generator seeded by ``reset(seed)``: the same seed gives the same games, not the
    AEC env's rolls."""
    from pig.fast import PigBatched

    return VectorEnv(PigBatched(**options), num_envs)
