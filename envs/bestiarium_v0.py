"""Retired: Bestiarium's version 0 (ten stone planes) was replaced by ``bestiarium_v1`` (the same rules and
actions, an observation that also carries the scoring cascade). Importing this module raises PettingZoo's
``DeprecatedEnv``, as PettingZoo's own retired versions do; the version history is on the spec page
(``envs/bestiarium/env.py``)."""

from pettingzoo.utils.deprecated_module import DeprecatedEnv

raise DeprecatedEnv(
    "bestiarium_v0 is now deprecated, use bestiarium_v1 instead (same rules and actions; the observation has 56 "
    "planes instead of 10: envs/bestiarium/env.py). Checkpoints trained on v0 do not load for v1."
)
