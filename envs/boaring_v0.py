"""Boaring as a PettingZoo AEC env (``env``, ``raw_env``) and a Parallel view (``parallel_env``)."""

from envs.boaring.env import __doc__ as __doc__  # noqa: F401  (the spec page)

from typing import Any

from envs.boaring.env import raw_env
from envs.boaring.parallel import BoaringParallelEnv
from envs.common.aec import wrap_standard


def env(**kwargs: Any):
    """The Boaring AEC env with PettingZoo's standard wrappers."""
    return wrap_standard(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> BoaringParallelEnv:
    """The Parallel view: one step is one simultaneous bid of every player (or one eat decision)."""
    return BoaringParallelEnv(**kwargs)


__all__ = ["env", "raw_env", "parallel_env"]
