"""Bestiarium, the public module: ``env()`` (standard wrappers), ``raw_env`` and ``vector_env`` (the batched,
compiled engine). Spec: ``envs/bestiarium/env.py``."""

from typing import Any

from pettingzoo import AECEnv

from envs.bestiarium.env import __doc__ as __doc__  # noqa: F401  (the spec page)
from envs.bestiarium.env import raw_env
from envs.common.aec import wrap_standard
from envs.common.vector import VectorEnv

__all__ = ["env", "raw_env", "vector_env"]


def env(**kwargs: Any) -> AECEnv:
    """Bestiarium with PettingZoo's standard wrappers (an illegal move ends the game, -1 to the mover)."""
    return wrap_standard(raw_env(**kwargs))


def vector_env(num_envs: int, **options: Any) -> VectorEnv:
    """``num_envs`` Bestiarium games stepped together by the compiled engine (``envs/bestiarium/fast.py``).

    Same options as ``env()`` (``board_size``, ``shape_equivalence``; a bad one raises the same ConfigError) and
    the same observation and action encodings, with identical values. A
    :class:`~envs.common.vector.VectorEnv`: ``reset(seed)`` / ``step(actions)`` over ``(num_envs, ...)`` arrays,
    observations from the mover's point of view (``info["current_player"]``; the eater keeps the turn through
    an eating chain), ``info["action_mask"]`` bool, per-seat rewards ``(num_envs, 2)`` paid at the end, same-step
    auto-reset with ``info["final_obs"]``, truncation at the ply cap (20 x cells plies) as ``env()`` applies it.
    """
    from envs.bestiarium.fast import BestiariumBatched

    return VectorEnv(BestiariumBatched(**options), num_envs)
