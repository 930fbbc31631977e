"""Beasty Borders, the public face: ``env()`` (standard wrappers), ``raw_env`` and the batched ``vector_env``.
Spec: envs/beasty_borders/env.py."""

from typing import Any

from pettingzoo import AECEnv

from envs.beasty_borders.env import __doc__ as __doc__  # noqa: F401  (the spec page)
from envs.beasty_borders.env import raw_env
from envs.common.aec import wrap_standard
from envs.common.vector import VectorEnv


def env(**kwargs: Any) -> AECEnv:
    """Beasty Borders with PettingZoo's standard wrappers (an illegal move ends the game, -1 to the mover)."""
    return wrap_standard(raw_env(**kwargs))


def vector_env(num_envs: int, **options: Any) -> VectorEnv:
    """``num_envs`` Beasty Borders games stepped together by the compiled engine (``envs/beasty_borders/fast.py``).

    Options as :func:`env` (``variant``, ``path_order``; a bad one raises the same ``ConfigError``); the
    observation and action encodings are the AEC env's, values identical. Returns a
    :class:`~envs.common.vector.VectorEnv`: ``reset(seed)``, ``step(actions)`` with same-step auto-reset,
    ``info["action_mask"]`` / ``info["current_player"]``, per-seat rewards. The dice and tile shuffles come from
    each game's own SplitMix64 generator, not numpy's: a vector env and ``env()`` with the same seed deal different
    games.
    """
    from envs.beasty_borders.fast import BeastyBordersBatched

    return VectorEnv(BeastyBordersBatched(**options), num_envs)


__all__ = ["env", "raw_env", "vector_env"]
