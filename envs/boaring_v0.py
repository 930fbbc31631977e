"""Boaring as a PettingZoo AEC env (``env``, ``raw_env``), a Parallel view (``parallel_env``) and a batched engine
(``vector_env``)."""

from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from envs.boaring.env import BoaringParallelEnv, raw_env
from envs.boaring.env import __doc__ as __doc__  # noqa: F401  (the spec page)
from envs.common.aec import wrap_standard
from envs.common.parallel import wrap_parallel_standard
from envs.common.vector import VectorEnv


def env(**kwargs: Any) -> AECEnv:
    """The Boaring AEC env with PettingZoo's standard wrappers."""
    return wrap_standard(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """The Parallel view: one step is one simultaneous bid of every player (or one eat decision). Wrapped as
    ``env()`` is: an action outside an agent's mask ends the game with -1 to that agent (the unwrapped
    :class:`~envs.boaring.env.BoaringParallelEnv` raises ``IllegalActionError`` instead)."""
    return wrap_parallel_standard(BoaringParallelEnv(**kwargs))


def vector_env(num_envs: int, **options: Any) -> VectorEnv:
    """``num_envs`` Boaring games stepped together by the compiled batched engine (``envs/boaring/fast.py``).

    Options as ``env()`` (``num_players`` 2-10, ``reward`` ``"pairwise"`` / ``"score"``; no ``render_mode``); bad
    ones raise the same :class:`~envs.common.game.ConfigError`. Observations and action ids are the AEC env's,
    from the point of view of the seat to move (``info["current_player"]``); ``info["action_mask"]`` is the
    bool legal mask; rewards are ``(num_envs, num_players)``; finished games restart in the same step with
    ``info["final_obs"]``. Any seat's view: ``observe(seats)``. Chance comes from each game's own SplitMix64
    generator, seeded by ``reset(seed)``: the same seed gives the same games, but not the same deals as the AEC
    env seeded alike. numba compiles the kernels on first use (cached on disk afterwards).
    """
    from envs.boaring.fast import BoaringBatched

    return VectorEnv(BoaringBatched(**options), num_envs)


__all__ = ["env", "raw_env", "parallel_env", "vector_env"]
