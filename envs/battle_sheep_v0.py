"""Battle Sheep, the public face: ``env()`` (standard wrappers) and ``raw_env``. Spec: envs/battle_sheep/env.py."""

from envs.battle_sheep.env import __doc__ as __doc__  # noqa: F401  (the spec page)
from envs.battle_sheep.env import raw_env
from envs.common.aec import wrap_standard


def env(**kwargs):
    """Battle Sheep with PettingZoo's standard wrappers (an illegal move ends the game, -1 to the mover)."""
    return wrap_standard(raw_env(**kwargs))


__all__ = ["env", "raw_env"]
