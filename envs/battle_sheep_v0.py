"""Battle Sheep, the public face: ``env()`` (standard wrappers), ``raw_env`` and ``vector_env`` (the batched engine).
Spec: envs/battle_sheep/env.py."""

from typing import Any

from pettingzoo import AECEnv

from envs.battle_sheep.env import __doc__ as __doc__  # noqa: F401  (the spec page)
from envs.battle_sheep.env import raw_env
from envs.common.aec import wrap_standard
from envs.common.vector import VectorEnv


def env(**kwargs: Any) -> AECEnv:
    """Battle Sheep with PettingZoo's standard wrappers (an illegal move ends the game, -1 to the mover)."""
    return wrap_standard(raw_env(**kwargs))


def vector_env(num_envs: int, **options: Any) -> VectorEnv:
    """``num_envs`` Battle Sheep games stepped together by the compiled batched engine (``envs/battle_sheep/fast.py``).

    Options as ``env()`` (``num_players`` 2-4, ``pasture``, ``end_rule``, ``canvas_radius``; no ``render_mode``); bad
    ones raise the same :class:`~envs.common.game.ConfigError`. Observations and action ids are the AEC env's, from
    the point of view of the seat to move (``info["current_player"]``); ``info["action_mask"]`` is the bool legal
    mask; rewards are ``(num_envs, num_players)``; finished games restart in the same step with
    ``info["final_obs"]``. Any seat's view: ``observe(seats)``. ``pasture="random"`` builds each pasture from the
    game's own SplitMix64 generator, seeded by ``reset(seed)``: the same seed gives the same games, but not the same
    pastures as the AEC env seeded alike. numba compiles the kernels on first use (cached on disk afterwards).
    """
    from envs.battle_sheep.fast import BattleSheepBatched

    return VectorEnv(BattleSheepBatched(**options), num_envs)


__all__ = ["env", "raw_env", "vector_env"]
