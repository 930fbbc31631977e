"""Observation encoding of Beasty Borders: one flat float32 vector, seat-relative ('me' first), values in [0, 1].

With ``H x W`` the landscape (6 x 9 main, 4 x 9 variant), ``T`` types per player (3 main, 2 variant) and
``P = 3 + 2T`` planes, the vector is, in this order::

    offset                 size        content
    0                      P * H * W   planes, each H x W row-major:
                                         0          lakes
                                         1          empty-space markers
                                         2 .. 1+T   my animals, one plane per type (A B C / X Y Z order)
                                         2+T..1+2T  the opponent's animals, one plane per type
                                         2+2T       the steps-marker position
    roll                   8           one-hot of the current die roll 1..8 (zeros once the game is over)
    phase                  2           one-hot: [roller's choice, responder's choice] (zeros once over)
    roller                 1           1 if I am the roller of this turn
    mine                   T           my animals still held per type / 8
    theirs                 T           the opponent's animals still held per type / 8
  variant only:
    row_mine               28          1 where the bidding-row figure of value i+1 is mine and still in the row
    row_theirs             28          1 where it is the opponent's and still in the row
    choice                 28          one-hot of the figure the roller pointed at (responder's choice phase)
    roller_passed          1           1 in the responder's choice phase when the roller passed
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.beasty_borders.actions import ROW_LEN, ROW_OWNER

if TYPE_CHECKING:  # pragma: no cover
    from envs.beasty_borders.rules import BeastyBordersGame, BeastyBordersState

EMPTY, LAKE, MARKER, FIRST_ANIMAL = 0, 1, 2, 3
NUM_CODES = 9
"""Cell codes: 0 empty green, 1 lake, 2 empty-space marker, 3 + 3 * seat + type an animal."""


class ObservationLayout:
    """Offsets of every block of the observation vector for one (variant) configuration."""

    def __init__(self, rows: int, cols: int, num_types: int, variant: bool):
        self.rows, self.cols, self.num_types, self.variant = rows, cols, num_types, variant
        self.cells = rows * cols
        self.num_planes = 3 + 2 * num_types
        self.board_size = self.num_planes * self.cells
        self.marker_plane = (self.num_planes - 1) * self.cells
        self.roll = self.board_size
        self.phase = self.roll + 8
        self.roller = self.phase + 2
        self.mine = self.roller + 1
        self.theirs = self.mine + num_types
        end = self.theirs + num_types
        if variant:
            self.row_mine = end
            self.row_theirs = self.row_mine + ROW_LEN
            self.choice = self.row_theirs + ROW_LEN
            self.roller_passed = self.choice + ROW_LEN
            end = self.roller_passed + 1
        self.size = end
        # luts[seat] : (P - 1, NUM_CODES) so that luts[seat][:, board] is the stack of the first P - 1 planes.
        self.luts = []
        for seat in range(2):
            lut = np.zeros((self.num_planes - 1, NUM_CODES), dtype=np.float32)
            lut[0, LAKE] = 1.0
            lut[1, MARKER] = 1.0
            for t in range(num_types):
                lut[2 + t, FIRST_ANIMAL + 3 * seat + t] = 1.0
                lut[2 + num_types + t, FIRST_ANIMAL + 3 * (1 - seat) + t] = 1.0
            self.luts.append(lut)
        owner = np.array(ROW_OWNER, dtype=np.int8)
        self.row_is_seat = [(owner == s).astype(np.float32) for s in range(2)]


def encode(game: "BeastyBordersGame", state: "BeastyBordersState", seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (layout in the module docstring)."""
    lay: ObservationLayout = game.layout
    out = np.zeros(lay.size, dtype=np.float32)
    np.take(lay.luts[seat], state.board, axis=1, out=out[: lay.marker_plane].reshape(lay.num_planes - 1, lay.cells))
    mine = state.remaining[seat]
    theirs = state.remaining[1 - seat]
    for t in range(lay.num_types):
        out[lay.mine + t] = mine[t] * 0.125
        out[lay.theirs + t] = theirs[t] * 0.125
    if state.roller == seat:
        out[lay.roller] = 1.0
    live = bool(state.empty)
    if live:
        out[lay.marker_plane + state.pos] = 1.0
        out[lay.roll + state.roll - 1] = 1.0
        out[lay.phase + state.phase] = 1.0
    if lay.variant:
        row = state.row
        out[lay.row_mine : lay.row_mine + ROW_LEN] = row * lay.row_is_seat[seat]
        out[lay.row_theirs : lay.row_theirs + ROW_LEN] = row * lay.row_is_seat[1 - seat]
        if live and state.phase == 1:
            if state.choice >= 0:
                out[lay.choice + state.choice] = 1.0
            else:
                out[lay.roller_passed] = 1.0
    return out
