"""Bestiarium (PettingZoo AEC): creatures of stones on a hexhex board eat different-shaped rivals and grow.

Rules as implemented, and every reading where the rulebook is silent: ``envs/bestiarium/RULES.md``.

Options
    ``board_size``: 5, 6 (default) or 7 cells a side (61 / 91 / 127 cells); anything else is a ConfigError.
    ``shape_equivalence``: ``"free"`` (default: shapes equal up to rotation and reflection, the 12 symmetries
    of the hex grid), ``"one_sided"`` (rotations only) or ``"fixed"`` (translation only).
    ``render_mode``: None, ``"human"``, ``"ansi"`` or ``"rgb_array"``.

Agents
    ``player_0`` = Black (moves first), ``player_1`` = White. During an eating chain the eater keeps
    ``agent_selection`` until its creature has grown and cannot eat again.

Action space
    ``Discrete(N + 1)``. ``0..N-1`` are the cells (row by row from the top, left to right; names ``a1``...):
    a placement in the place phase, the growth cell in the grow phase. ``N`` is pass, legal only when no
    placement is. The mask gives the legal ids of the current phase.

Observation
    ``{"observation": float32 (10, 2R+1, 2R+1), "action_mask": int8 (N + 1,)}`` with R = board_size - 1, over
    the square embedding (row r+R, column q+R) of the axial hex coordinates, seen from the observing player:

    =====  ===========================================================================================
    plane  content
    =====  ===========================================================================================
    0      my stones
    1      the opponent's stones
    2      empty cells
    3      on-board cells (0 in the two unused corners of the square)
    4      the creature that must grow (the eater, in the grow phase), else 0
    5      grow phase: all ones while the player to move must choose a growth cell
    6      a pass is pending: all ones when the last ply was a pass (one more pass ends the game)
    7      size of my creature on each of my stones / 10 (capped at 1)
    8      size of the opponent's creature on each of their stones / 10 (capped at 1)
    9      cells where I may place a stone (empty, touching at most one of my creatures)
    =====  ===========================================================================================

    Planes 7-9 are derived from the stones (a convolution sees only a few cells around each cell, while a
    creature's size and the no-merge rule decide every eat and every placement).

Rewards
    Terminal only: +1 to the winner of the scoring cascade, -1 to the loser (never a draw). A game cut by the ply
    cap (``20 x cells`` plies: placements, growths and passes) is truncated with rewards 0.

Notation
    ``e5`` places on cell e5, ``+e5`` grows onto e5, ``pass`` passes (``action_to_str`` / ``str_to_action``).
"""

from __future__ import annotations

from envs.common.aec import BarnyardAECEnv
from envs.bestiarium.rules import BestiariumGame


class raw_env(BarnyardAECEnv):  # noqa: N801 - PettingZoo naming
    """Bestiarium without the standard wrappers (illegal actions raise IllegalActionError)."""

    metadata = {**BarnyardAECEnv.metadata, "name": "bestiarium_v0"}
    game_class = BestiariumGame
