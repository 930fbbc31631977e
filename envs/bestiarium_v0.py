"""Bestiarium, the public module: ``env()`` (standard wrappers) and ``raw_env``. Spec: ``envs/bestiarium/env.py``."""

from envs.bestiarium.env import __doc__ as __doc__  # noqa: F401  (the spec page)

from envs.bestiarium.env import raw_env
from envs.common.aec import wrap_standard

__all__ = ["env", "raw_env"]


def env(**kwargs):
    """Bestiarium with PettingZoo's standard wrappers (an illegal move ends the game, -1 to the mover)."""
    return wrap_standard(raw_env(**kwargs))
