"""Bestiarium (PettingZoo AEC): creatures of stones on a hexhex board eat different-shaped rivals and grow.

Rules as implemented, and every reading where the rulebook is silent: ``envs/bestiarium/RULES.md``.

Options
    .. options: generated from OPTIONS in rules.py by ``python -m envs.common.options``; do not edit
    ``board_size``: ``5`` | ``6`` | ``7``; default ``6``. Cells a side of the hexhex board (61, 91, 127 cells).
    ``shape_equivalence``: ``"free"`` | ``"one_sided"`` | ``"fixed"``; default ``"free"``. When two creatures have the
        same shape: "free" up to rotation and reflection (the 12 symmetries of the hex grid), "one_sided" up to
        rotation, "fixed" up to translation only.
    ``render_mode`` (the env only): ``None`` (default) | ``"human"`` | ``"ansi"`` | ``"rgb_array"``.
    .. end of options

Agents
    ``player_0`` = Black (moves first), ``player_1`` = White. During an eating chain the eater keeps
    ``agent_selection`` until its creature has grown and cannot eat again.

Action space
    ``Discrete(N + 1)``. ``0..N-1`` are the cells (row by row from the top, left to right; names ``a1``...):
    a placement in the place phase, the growth cell in the grow phase. ``N`` is pass, legal only when no
    placement is. The mask gives the legal ids of the current phase.

Observation
    ``{"observation": float32 (56, 2R+1, 2R+1), "action_mask": int8 (N + 1,)}`` with R = board_size - 1, over
    the square embedding (row r+R, column q+R) of the axial hex coordinates, seen from the observing player
    ("me"). Planes 0-9 are the stones; planes 10-55 carry the score, computed by the engine from the position
    (nothing hidden: the game has no hidden information), because the scoring cascade is global and
    combinatorial and a few convolutions cannot derive it (``python -m lab.value_fit`` measures it):

    =========  ===========================================================================================
    plane      content
    =========  ===========================================================================================
    0          my stones
    1          the opponent's stones
    2          empty cells
    3          on-board cells (0 in the two unused corners of the square)
    4          the creature that must grow (the eater, in the grow phase), else 0
    5          grow phase: all ones while the player to move must choose a growth cell
    6          a pass is pending: all ones when the last ply was a pass (one more pass ends the game)
    7          size of my creature on each of my stones / 10 (capped at 1)
    8          size of the opponent's creature on each of their stones / 10 (capped at 1)
    9          cells where I may place a stone (empty, touching at most one of my creatures)
    10         my stones whose creature is in a fauna (its size has >= 2 shapes among my creatures)
    11         the opponent's stones whose creature is in a fauna
    12         my stones whose creature has a twin (another of mine of the same size and shape)
    13         the opponent's stones whose creature has a twin
    14         stones of the opponent's that one stone of mine added here would eat at once / 10 (capped at 1):
               my placements, or my growth cells while I am the eater in the grow phase
    15         the same for the opponent's stone added here (my stones it would eat)
    16         my stones that some stone of the opponent could eat at once (the prey of plane 15)
    17         the opponent's stones that some stone of mine could eat at once (the prey of plane 14)
    18 .. 29   constant: my cascade value at size 1 .. 12, divided by size^2, x 0.25, clipped to [-1, 1]
               (+k for a fauna of k shapes, -n for a species of n creatures)
    30 .. 41   constant: the opponent's, likewise
    42 .. 53   constant: per size 1 .. 12, +1 if my value is higher, -1 if lower, 0 if equal
    54         constant: the verdict if the game ended now: +1 I win, -1 I lose, 0 if every size ties
    55         constant: the size that decides the verdict / 12 (capped at 1; 0 if every size ties)
    =========  ===========================================================================================

    Planes 7-9 and 10-17 are derived from the stones (a convolution sees only a few cells around each cell,
    while a creature's size, shape class and the no-merge rule decide every eat and every placement). The last
    38 planes are constants: ``BestiariumGame.global_planes`` = 38 tells a network to read them as a vector
    (Barnyard's ConvNet feeds them into its value head). Plane 14 / 15 count the first eat only (a chain may go
    on), and "could eat" needs the growth that the rule requires.

Rewards
    Terminal only: +1 to the winner of the scoring cascade, -1 to the loser (never a draw). A game cut by the ply
    cap (``20 x cells`` plies: placements, growths and passes) is truncated with rewards 0.

Notation
    ``e5`` places on cell e5, ``+e5`` grows onto e5, ``pass`` passes (``action_to_str`` / ``str_to_action``).

Version history
    =======  ==========  =======================================================================================
    version  date        change
    =======  ==========  =======================================================================================
    v1       2026-12-02  the observation gains planes 10-55 (fauna and twin membership, eat threats and prey, the
                         scoring cascade now); rules, actions and rewards unchanged. ``envs.bestiarium_v0`` now
                         raises PettingZoo's ``DeprecatedEnv``; v0 checkpoints (10 planes) do not load for v1.
    v0       2026-11-30  first release: stone planes (planes 7-9, the derived sizes and placements, from 2026-12-01)
    =======  ==========  =======================================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.bestiarium import observation
from envs.bestiarium.observation import NUM_PLANES
from envs.bestiarium.rules import BestiariumGame
from envs.common.aec import BarnyardAECEnv
from envs.common.game import Game

_LOW = np.zeros((NUM_PLANES, 1, 1), dtype=np.float32)
_LOW[observation.MY_VALUE :] = -1.0  # the value, comparison and verdict planes are signed
_LOW[observation.DECIDING_SIZE] = 0.0


class raw_env(BarnyardAECEnv):  # noqa: N801 - PettingZoo naming
    """Bestiarium without the standard wrappers (illegal actions raise IllegalActionError)."""

    metadata = {**BarnyardAECEnv.metadata, "name": "bestiarium_v1"}
    game_class = BestiariumGame

    @classmethod
    def observation_bounds(cls, game: Game) -> tuple[Any, Any]:
        """The value, comparison and verdict planes are signed ([-1, 1]); the others lie in [0, 1]."""
        return np.broadcast_to(_LOW, game.observation_shape).copy(), 1.0
