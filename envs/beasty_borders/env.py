"""Beasty Borders as a PettingZoo AEC environment.

``from envs import beasty_borders_v0; env = beasty_borders_v0.env(variant="main", path_order="typewriter")``

Options
    .. options: generated from OPTIONS in rules.py by ``python -m envs.common.options``; do not edit
    ``variant``: ``"main"`` | ``"without_luck"``; default ``"main"``. "main": 9 tiles, a 6 x 9 landscape with 42 green
        spaces, 3 animal types of 8, 7, 5 per player, the D8 decides the steps and a pass lets the roller roll again;
        "without_luck": 6 tiles (3 wide, 2 tall), a 4 x 9 landscape with 27 to 30 green spaces, 2 types of 8, 6 per
        player offered through a bidding row of 28 figures, the roll alternates strictly.
    ``path_order``: ``"typewriter"`` | ``"snake"``; default ``"typewriter"``. "typewriter": every row west to east, then
        the west end of the row below (the bottom row wraps to the top); "snake": rows alternate east and west (the
        signpost's row runs east).
    ``render_mode`` (the env only): ``None`` (default) | ``"human"`` | ``"ansi"`` | ``"rgb_array"``.
    .. end of options

Agents
    ``player_0`` = seat 0 = the farm player (A B C), the start player; ``player_1`` = seat 1 = the wild player
    (X Y Z). A turn: the roller's die roll (drawn from the env's seeded generator when the turn starts, shown in
    the observation) moves the steps-marker; the roller chooses, then (main game: only after a pass) the other
    player chooses. ``agent_selection`` follows the engine's ``current_player``.

Action space
    ``Discrete(4)`` main: 0/1/2 = place my first/second/third type (A B C or X Y Z), 3 = pass.
    ``Discrete(29)`` variant: 0..27 = point at the bidding-row figure of value 1..28, 28 = pass.
    The action mask marks the legal ones (types still held; own figures still in the row, above the roller's
    choice when responding); pass is always legal.

Observation
    A flat float32 vector in [0, 1], seat-relative (details in ``envs/beasty_borders/observation.py`` and
    RULES.md). With the H x W landscape (6 x 9 main, 4 x 9 variant) and T animal types per player (3 main, 2
    variant), the blocks in order:

    ===============  =================  ========================================================================
    block            size               content
    ===============  =================  ========================================================================
    planes           (3 + 2T) x H x W   lakes, empty-space markers, my animals by type, the opponent's by type,
                                        the steps-marker (each H x W, row-major)
    roll             8                  one-hot die roll 1..8 (zeros once over)
    phase            2                  one-hot roller's choice, responder's choice (zeros once over)
    roller           1                  1 if I am this turn's roller
    mine             T                  my animals still held per type / 8
    theirs           T                  the opponent's animals still held per type / 8
    score            2                  my victory points / 50, the opponent's / 50 (capped at 1)
    row_mine         28                 my figures still in the bidding row (only with variant=without_luck)
    row_theirs       28                 the opponent's figures still in the row (only with variant=without_luck)
    choice           28                 one-hot figure the roller pointed at (only with variant=without_luck)
    roller_passed    1                  1 when the roller passed, responder's phase (only with
                                        variant=without_luck)
    spaces           9 x (2T + 1)       the steps-marker's space and the 8 spaces the next roll can reach: per
                                        space the points each of my types and each of theirs would gain there
                                        / 10, then its empty green neighbours / 4 (zeros once over)
    ===============  =================  ========================================================================

    Length 568 main, 399 variant.

Rewards
    Terminal only: +1 winner, -1 loser, 0 both for a draw. Most victory points wins (groups of 2..8 identical
    orthogonally connected animals score 1, 3, 5, 7, 8, 9, 10); tie: most animals placed; still tied: draw.

Notation
    Main: ``A`` .. ``C`` / ``X`` .. ``Z`` (the mover's type) or ``pass``; variant: ``A1`` .. ``A28`` (figure
    letter and value) or ``pass``. ``env.unwrapped.action_to_str(a)`` / ``str_to_action(text)``.

Version history
    =======  ========  ==========================================================================================
    version  package   changes
    =======  ========  ==========================================================================================
    v0       0.1.0     first release
    =======  ========  ==========================================================================================
"""

from __future__ import annotations

from typing import Any, ClassVar

from envs.beasty_borders.rules import BeastyBordersGame
from envs.common.aec import BarnyardAECEnv


class raw_env(BarnyardAECEnv):  # noqa: N801 - PettingZoo naming
    """Beasty Borders AEC env without wrappers (illegal actions raise IllegalActionError)."""

    metadata: ClassVar[dict[str, Any]] = {**BarnyardAECEnv.metadata, "name": "beasty_borders_v0"}
    game_class = BeastyBordersGame
