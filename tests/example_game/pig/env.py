"""Pig: roll a die as long as you dare, bank the turn total before a 1 takes it (2 players).

This is the example game of ``docs/adding_a_game.md``: it lives under ``tests/example_game/`` and joins the
suite through ``envs.register_game`` (``tests/conftest.py``), so the guide's steps run in CI.

=====================  ==========================================================================================
Import                 ``import pig_v0`` (``tests/example_game`` on ``sys.path``); ``pig_v0.env(target=20)``;
                       ``pettingzoo.make("aec", "barnyard/pig-v0")`` once the game is registered
Options                ``target``, ``render_mode``: the Options section below
Agents                 ``player_0`` (moves first) and ``player_1``
Action space           ``Discrete(2)``: 0 roll the die; 1 hold (bank the turn total; legal when it is above 0)
Observation            ``{"observation": float32[5], "action_mask": int8[2]}`` from the observer's seat: both
                       banked scores (mine first), the turn total, who is to move
Turn order (AEC)       The player to move keeps the turn while rolling 2-6; a 1 or a hold passes it
Rewards                terminal only, zero-sum: +1 to the first player whose banked score reaches the target,
                       -1 to the other. A game cut at the ply cap (``50 x target`` plies) is truncated with 0
Notation               ``roll``, ``hold``
Global state           ``env.state()``: player_0's observation and a one-hot of the seat to move, float32[7]
=====================  ==========================================================================================

Options
    .. options: generated from OPTIONS in rules.py by ``python -m envs.common.options``; do not edit
    ``target``: 10 .. 100; default ``20``. The banked score that wins the game.
    ``render_mode`` (the env only): ``None`` (default) | ``"human"`` | ``"ansi"`` | ``"rgb_array"``.
    .. end of options

The observation's blocks, in order (``pig/observation.py``; every entry in [0, 1]):

==========  ======  ==============================================================================
block       size    content
==========  ======  ==============================================================================
scores      2       banked scores, mine then the opponent's, each / target (capped at 1)
turn_total  1       the turn total of the player to move / target (capped at 1)
to_move     2       one-hot relative seat of the player to move (me, the opponent); zeros once over
==========  ======  ==============================================================================

``raw_env`` raises :class:`~envs.common.game.IllegalActionError` on an illegal action; ``env()`` adds
PettingZoo's standard wrappers (an illegal move ends the game with -1 to the mover). The rules as implemented:
``pig/RULES.md``.

Version history:

=======  ==========  ===================================================================================
version  package     changes
=======  ==========  ===================================================================================
v0       unreleased  first version
=======  ==========  ===================================================================================
"""

from __future__ import annotations

from typing import ClassVar

from envs.common.aec import BarnyardAECEnv
from pig.rules import PigGame


class raw_env(BarnyardAECEnv):  # noqa: N801 - PettingZoo naming
    """The Pig AEC env without wrappers (every observation entry in [0, 1], the base class's bounds)."""

    metadata: ClassVar[dict] = {**BarnyardAECEnv.metadata, "name": "pig_v0"}
    game_class = PigGame
