"""Beasty Borders, the public face: ``env()`` (standard wrappers) and ``raw_env``. Spec: envs/beasty_borders/env.py."""

from envs.beasty_borders.env import __doc__ as __doc__  # noqa: F401  (the spec page)
from envs.beasty_borders.env import raw_env
from envs.common.aec import wrap_standard


def env(**kwargs):
    """Beasty Borders with PettingZoo's standard wrappers (an illegal move ends the game, -1 to the mover)."""
    return wrap_standard(raw_env(**kwargs))


__all__ = ["env", "raw_env"]
