"""Rule tests of Beasty Borders on hand-made positions."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from envs.beasty_borders import actions as act
from envs.beasty_borders import render
from envs.beasty_borders.actions import RESPONDER_CHOICE, ROLLER_CHOICE, TILES, cell_char, tile_lakes
from envs.beasty_borders.kernels import GROUP_VP
from envs.beasty_borders.rules import BeastyBordersGame
from envs.common.game import TERMINAL, ConfigError, IllegalActionError, SnapshotError
from envs.common.testing import state_key

# Lakes of tiles laid as slots 0..8 = tiles 0 1 2 / 3 6 4 / 5 7 8 (signpost on a1).
LAKES_MAIN = """
....~...~
..~......
...~.....
~...~..~.
~...~...~
.....~~..
"""

# The rulebook's scoring example, rebuilt: player 1 (farm) 19 vp, player 2 (wild) 17 vp.
#   A: groups of 4 (a1-a4), 3 (e2-e4) and a single (d7)   -> 5 + 3 + 0
#   B: groups of 5 (b1 b2 c1 c2 c3) and 2 (e6 e7)          -> 7 + 1
#   C: a group of 3 (d2-d4) and two singles (f3, f9)       -> 3
#   X: a group of 5 (b4 b5 c5 c6 c7) and singles f1, f8   -> 7
#   Y: a group of 7 (a6-a8, b6-b8, c8)                     -> 9
#   Z: a group of 2 (b9 c9) and a single f5                -> 1
SCORING_EXAMPLE = """
AAAA~YYY~
BB~XXYYYZ
BBB~XXXYZ
~CCC~#A~#
~AAA~BB#~
X#C#Z~~XC
"""


class FixedRolls:
    """A generator stand-in: ``integers`` returns the given rolls in turn; everything else is a real Generator."""

    def __init__(self, rolls, seed: int = 0):
        self.rolls = list(rolls)
        self._g = np.random.default_rng(seed)

    def integers(self, low, high=None, *args, **kwargs):  # noqa: D401 - numpy signature
        assert (low, high) == (1, 9), "only D8 rolls are rigged"
        return self.rolls.pop(0)

    def __getattr__(self, name):
        return getattr(self._g, name)


def main_game(**kw) -> BeastyBordersGame:
    """The main game with options."""
    return BeastyBordersGame(**kw)


def variant_game(**kw) -> BeastyBordersGame:
    """The 'without luck' variant."""
    return BeastyBordersGame(variant="without_luck", **kw)


def fill_count(game: BeastyBordersGame, state) -> int:
    """Green spaces filled (animals + markers)."""
    return int(np.count_nonzero(state.board >= 2))


A, B, C, PASS = 0, 1, 2, act.MAIN_PASS


def cell(game, name):
    return "abcdef".index(name[0]) * game.cols + int(name[1:]) - 1


# ----- tiles and set-up -----------------------------------------------------------------------------
def test_tile_table():
    lakes = [len(tile_lakes(t)) for t in range(len(TILES))]
    assert sorted(lakes) == [1] * 6 + [2] * 3
    assert sum(6 - n for n in lakes) == 42 and sum(lakes) == 12
    positions = Counter(p for t in range(len(TILES)) for p in tile_lakes(t))
    assert set(positions.values()) == {2} and len(positions) == 6  # no lake position favoured
    assert TILES[0][0][0] == "S" and len(tile_lakes(0)) == 1
    for t in range(len(TILES)):  # no two orthogonally adjacent lakes on a tile
        ls = set(tile_lakes(t))
        assert not any((r + dr, c + dc) in ls for r, c in ls for dr, dc in ((0, 1), (1, 0)))


def test_initial_state_main():
    g = main_game()
    s = g.initial_state(FixedRolls([3], seed=5))
    assert sorted(s.tiles) == list(range(9))
    assert int(np.count_nonzero(s.board == 0)) == 42 and int(np.count_nonzero(s.board == 1)) == 12
    sign = g.signpost_cell(s.tiles)
    assert sign // 9 % 2 == 0 and sign % 3 == 0
    # The steps-marker starts on the signpost and the start player's roll moves it (own space not counted).
    fresh = g.blank_state(s.tiles)
    fresh.pos = sign
    assert s.pos == g.target_cell(fresh, 3) and s.pos != sign
    assert s.roll == 3 and s.roller == 0 and g.current_player(s) == 0 and s.phase == ROLLER_CHOICE


def test_tiles_shuffled_uniformly_and_seeded():
    g = main_game()
    firsts = Counter(g.initial_state(np.random.default_rng(k)).tiles[0] for k in range(900))
    assert set(firsts) == set(range(9)) and min(firsts.values()) > 60
    assert state_key(g, g.initial_state(np.random.default_rng(7))) == state_key(
        g, g.initial_state(np.random.default_rng(7))
    )


def test_config_errors():
    with pytest.raises(ConfigError, match="without_luck"):
        BeastyBordersGame(variant="luck")
    with pytest.raises(ConfigError, match="snake"):
        BeastyBordersGame(path_order="spiral")


# ----- scoring ---------------------------------------------------------------------------------------
def test_group_vp_table():
    assert GROUP_VP[1:] == (0, 1, 3, 5, 7, 8, 9, 10)


def test_rulebook_scoring_example():
    g = main_game()
    s = render.state_from_text(g, SCORING_EXAMPLE)
    assert g.current_player(s) == TERMINAL
    groups = Counter((cell_char(3 + 3 * seat + kind), size) for seat, kind, size in g.groups(s))
    assert groups == Counter(
        {
            ("A", 4): 1,
            ("A", 3): 1,
            ("A", 1): 1,
            ("B", 5): 1,
            ("B", 2): 1,
            ("C", 3): 1,
            ("C", 1): 2,
            ("X", 5): 1,
            ("X", 1): 2,
            ("Y", 7): 1,
            ("Z", 2): 1,
            ("Z", 1): 1,
        }
    )
    assert g.scores(s).tolist() == [19, 17]
    assert s.placed == [20, 17]
    assert g.returns(s).tolist() == [1.0, -1.0]


def test_diagonal_is_not_a_group():
    g = main_game()
    s = render.state_from_text(
        g, LAKES_MAIN.replace("....~", "A...~", 1).replace("..~......", ".A~......", 1), marker="a3"
    )
    assert g.scores(s).tolist() == [0, 0]
    s2 = render.state_from_text(g, LAKES_MAIN.replace("....~", "AA..~", 1), marker="a3")
    assert g.scores(s2).tolist() == [1, 0]
    s3 = render.state_from_text(g, LAKES_MAIN.replace("....~", "AB..~", 1), marker="a3")  # different types
    assert g.scores(s3).tolist() == [0, 0]


def _full(board_text: str) -> str:
    return board_text.replace(".", "#")


def test_tie_break_most_animals_placed():
    g = main_game()
    # farm: pair AA (1 vp) + single C; wild: pair XX (1 vp): equal vp, farm placed 3 > 2.
    s = render.state_from_text(g, _full(LAKES_MAIN.replace("....~", "AAC.~", 1).replace("..~......", "XX~......", 1)))
    assert g.scores(s).tolist() == [1, 1] and s.placed == [3, 2]
    assert g.returns(s).tolist() == [1.0, -1.0]
    # still tied: draw.
    s = render.state_from_text(g, _full(LAKES_MAIN.replace("....~", "AA..~", 1).replace("..~......", "XX~......", 1)))
    assert g.scores(s).tolist() == [1, 1] and s.placed == [2, 2]
    assert g.returns(s).tolist() == [0.0, 0.0]


def test_vp_beat_animals_placed():
    g = main_game()
    s = render.state_from_text(
        g,
        _full(
            LAKES_MAIN.replace("....~", "A.A.~", 1)
            .replace("..~......", "X.~.C.B..", 1)
            .replace("~...~..~.", "~XX.~..~.", 1)
        ),
    )
    # wild: single X on b1 and the pair d2-d3 -> 1 vp, 3 placed; farm: 4 singles -> 0 vp, 4 placed
    assert g.scores(s).tolist() == [0, 1] and s.placed == [4, 3]
    assert g.returns(s).tolist() == [-1.0, 1.0]


# ----- the path ----------------------------------------------------------------------------------------
def test_typewriter_path_skips_lakes_and_filled_spaces():
    g = main_game()
    s = render.state_from_text(g, LAKES_MAIN, marker="a8")
    assert g.target_cell(s, 1) == cell(g, "b1")  # a9 is a lake; the side -> start of the next row below
    assert g.target_cell(s, 2) == cell(g, "b2")
    assert g.target_cell(s, 3) == cell(g, "b4")  # b3 is a lake
    s = render.state_from_text(g, LAKES_MAIN.replace("..~......", "A.~#.....", 1), marker="a8")
    assert g.target_cell(s, 1) == cell(g, "b2")  # b1 filled by an animal
    assert g.target_cell(s, 2) == cell(g, "b5")  # b3 lake, b4 marker


def test_typewriter_path_wraps_bottom_to_top():
    g = main_game()
    s = render.state_from_text(
        g, LAKES_MAIN.replace(".....~~..", ".....~~AX", 1).replace("....~", "#...~", 1), marker="f8"
    )
    assert g.target_cell(s, 1) == cell(g, "a2")  # f9 filled, then the top row; a1 is a marker
    assert g.target_cell(s, 3) == cell(g, "a4")


def test_snake_path():
    g = main_game(path_order="snake")
    s = render.state_from_text(g, LAKES_MAIN, marker="a8")
    assert g.target_cell(s, 1) == cell(g, "b9")  # a9 lake; row b runs west from its east end
    assert g.target_cell(s, 2) == cell(g, "b8")
    s = render.state_from_text(g, LAKES_MAIN, marker="b2")
    assert g.target_cell(s, 1) == cell(g, "b1")
    assert g.target_cell(s, 2) == cell(g, "c1")  # row c runs east again
    s = render.state_from_text(g, LAKES_MAIN, marker="f2")
    assert g.target_cell(s, 1) == cell(g, "f1")
    assert g.target_cell(s, 2) == cell(g, "a1")  # bottom row (west-running) wraps to the top row


def test_full_lap_when_few_spaces_remain():
    g = main_game()
    rows = [r.replace(".", "#") for r in LAKES_MAIN.split()]
    rows[2] = "#.#~#.###"  # c2 and c6 empty
    s = render.state_from_text(g, rows, marker="c2")
    s.board[cell(g, "c2")] = 2  # the marker's own space has just been filled
    s.empty = [g.rank[cell(g, "c6")]]
    for roll in range(1, 9):
        assert g.target_cell(s, roll) == cell(g, "c6")
    s = render.state_from_text(g, rows, marker="c2")
    # own (empty) space counts only after a full lap: c6, c2, c6, ...
    assert [g.target_cell(s, k) for k in (1, 2, 3, 4)] == [cell(g, n) for n in ("c6", "c2", "c6", "c2")]


# ----- turn order (main) ---------------------------------------------------------------------------------
def test_place_passes_the_die():
    g = main_game()
    s = render.state_from_text(g, LAKES_MAIN, marker="a2", roller=0, roll=1)
    g.apply(s, B, FixedRolls([2]))
    assert render.board_rows(g, s)[0][1] == "B" and s.remaining[0] == [8, 6, 5] and s.placed == [1, 0]
    assert s.roller == 1 and s.phase == ROLLER_CHOICE and g.current_player(s) == 1
    assert s.roll == 2 and s.pos == cell(g, "a4")  # a3 (1), a4 (2)


def test_pass_then_other_places_roller_rolls_again():
    g = main_game()
    s = render.state_from_text(g, LAKES_MAIN, marker="a2", roller=0)
    g.apply(s, PASS, FixedRolls([]))
    assert s.phase == RESPONDER_CHOICE and g.current_player(s) == 1 and s.roller == 0
    assert g.legal_actions(s) == [0, 1, 2, 3]
    assert g.action_to_str(s, 2) == "Z"
    g.apply(s, 2, FixedRolls([1]))  # wild places a Z
    assert render.board_rows(g, s)[0][1] == "Z" and s.remaining[1] == [8, 7, 4] and s.placed == [0, 1]
    assert s.roller == 0 and g.current_player(s) == 0 and s.phase == ROLLER_CHOICE and s.pos == cell(g, "a3")


def test_both_pass_places_a_marker_and_roller_rolls_again():
    g = main_game()
    s = render.state_from_text(g, LAKES_MAIN, marker="a2", roller=1)
    g.apply(s, PASS, FixedRolls([]))
    assert g.current_player(s) == 0
    g.apply(s, PASS, FixedRolls([4]))
    assert render.board_rows(g, s)[0][1] == "#" and s.placed == [0, 0]
    assert s.roller == 1 and g.current_player(s) == 1 and s.pos == cell(g, "a7")  # a3 a4 a6 a7 (a5 lake)
    assert fill_count(g, s) == 1


def test_player_out_of_animals_can_only_pass():
    g = main_game()
    board = LAKES_MAIN.split()
    board[0], board[1], board[2], board[3] = "AAAA~AAA~", "AB~BBBBBB", "CCC~CC...", "~...~..~."
    s = render.state_from_text(g, board, marker="c7", roller=0)
    assert s.remaining[0] == [0, 0, 0]
    assert g.legal_mask(s).tolist() == [0, 0, 0, 1] and g.legal_actions(s) == [PASS]
    before = state_key(g, s)
    with pytest.raises(IllegalActionError, match="no A animal left"):
        g.apply(s, A, FixedRolls([1]))
    assert state_key(g, s) == before
    g.apply(s, PASS, FixedRolls([]))
    assert g.current_player(s) == 1 and g.legal_actions(s) == [0, 1, 2, 3]
    g.apply(s, 0, FixedRolls([1]))  # wild fills the space with an X; farm rolls again
    assert g.current_player(s) == 0 and s.roller == 0 and g.legal_actions(s) == [PASS]


def test_illegal_actions_leave_state():
    g = main_game()
    s = render.state_from_text(g, LAKES_MAIN, marker="a2")
    before = state_key(g, s)
    for bad in (-1, 4, 1.5, "A", True):
        with pytest.raises(IllegalActionError):
            g.apply(s, bad, FixedRolls([1]))
    assert state_key(g, s) == before


def test_game_ends_when_all_green_filled():
    g = main_game()
    rows = [r.replace(".", "#") for r in LAKES_MAIN.split()]
    rows[0] = "A###~###~"
    rows[1] = "#.~######"
    s = render.state_from_text(g, rows, marker="b2", roller=0)
    g.apply(s, A, FixedRolls([]))  # no roll afterwards: the landscape is full
    assert g.current_player(s) == TERMINAL and not g.legal_mask(s).any()
    with pytest.raises(IllegalActionError, match="over"):
        g.apply(s, PASS, FixedRolls([]))
    # a1 and b2 are diagonal: 0 vp each side; farm placed 2 > 0 and wins on the tie-break
    assert g.rank_keys(s) == [(0, 2), (0, 0)]
    assert g.returns(s).tolist() == [1.0, -1.0]


def test_notation_round_trip_main():
    g = main_game()
    s = render.state_from_text(g, LAKES_MAIN, marker="a2", roller=1)
    for a in range(g.num_actions):
        assert g.str_to_action(s, g.action_to_str(s, a)) == a
    assert [g.action_to_str(s, a) for a in range(4)] == ["X", "Y", "Z", "pass"]
    with pytest.raises(IllegalActionError):
        g.str_to_action(s, "A")


# ----- the variant -------------------------------------------------------------------------------------
def test_bidding_row_data():
    assert act.ROW_LEN == 28
    assert Counter(act.BIDDING_ROW) == {"A": 8, "X": 8, "B": 6, "Y": 6}
    assert act.BIDDING_ROW[0] == "A" and act.BIDDING_ROW[-1] == "A" and act.BIDDING_ROW[-3:-1] == "YX"


def test_variant_setup_and_green_count():
    g = variant_game()
    assert (g.rows, g.cols, g.num_actions) == (4, 9, 29)
    for k in range(30):
        s = g.initial_state(np.random.default_rng(k))
        assert len(s.tiles) == 6 and 0 in s.tiles and len(set(s.tiles)) == 6
        doubles = sum(len(tile_lakes(t)) == 2 for t in s.tiles)
        assert len(s.empty) == 30 - doubles
        assert s.remaining == [[8, 6], [8, 6]]


def _variant_state(g, roller=0, seed=1):
    s = g.initial_state(np.random.default_rng(seed))
    s.roller = roller
    return s


def test_variant_responder_must_bid_higher():
    g = variant_game()
    s = _variant_state(g)
    assert g.legal_actions(s) == [i for i in range(28) if act.ROW_OWNER[i] == 0] + [28]
    g.apply(s, 4, FixedRolls([]))  # farm points at A5
    assert g.current_player(s) == 1 and s.phase == RESPONDER_CHOICE and s.choice == 4
    obs = g.observation(s, 1)
    assert obs[g.layout.choice + 4] == 1.0 and obs[g.layout.roller_passed] == 0.0
    legal = g.legal_actions(s)
    assert legal == [i for i in range(5, 28) if act.ROW_OWNER[i] == 1] + [28]
    with pytest.raises(IllegalActionError, match="higher value"):
        g.apply(s, 1, FixedRolls([]))  # X2 < A5
    with pytest.raises(IllegalActionError, match="not one of"):
        g.apply(s, 8, FixedRolls([]))  # A9 is farm's
    pos = s.pos
    g.apply(s, 5, FixedRolls([3]))  # wild outbids with X6: X6 placed, A5 stays in the row
    assert s.board[pos] == 3 + 3 + 0 and s.row[5] == 0 and s.row[4] == 1
    assert s.remaining == [[8, 6], [7, 6]] and s.placed == [0, 1]
    assert s.roller == 1 and g.current_player(s) == 1 and s.choice == -1  # strict alternation


def test_variant_responder_pass_places_rollers_figure():
    g = variant_game()
    s = _variant_state(g)
    pos = s.pos
    g.apply(s, 2, FixedRolls([]))  # B3
    g.apply(s, 28, FixedRolls([5]))
    assert s.board[pos] == 3 + 1 and s.row[2] == 0 and s.remaining[0] == [8, 5] and s.placed == [1, 0]
    assert s.roller == 1 and g.current_player(s) == 1
    with pytest.raises(IllegalActionError, match="left the bidding row"):
        s.roller, s.phase = 0, ROLLER_CHOICE
        g.apply(s, 2, FixedRolls([]))


def test_variant_roller_pass():
    g = variant_game()
    s = _variant_state(g)
    g.apply(s, 28, FixedRolls([]))
    assert g.current_player(s) == 1 and g.observation(s, 1)[g.layout.roller_passed] == 1.0
    assert g.legal_actions(s) == [i for i in range(28) if act.ROW_OWNER[i] == 1] + [28]  # any of theirs
    pos = s.pos
    g.apply(s, 28, FixedRolls([2]))  # both pass: marker; the roll still alternates
    assert s.board[pos] == 2 and s.roller == 1 and g.current_player(s) == 1
    g.apply(s, 28, FixedRolls([]))  # wild passes, farm places A1
    pos = s.pos
    g.apply(s, 0, FixedRolls([1]))
    assert s.board[pos] == 3 and s.roller == 0


def test_variant_running_out():
    g = variant_game()
    s = g.initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(0)
    while g.current_player(s) != TERMINAL:
        seat = g.current_player(s)
        legal = g.legal_actions(s)
        # farm always points at its lowest figure; wild always passes
        g.apply(s, legal[0] if seat == 0 else 28, rng)
        if s.placed[0] == 14 and g.current_player(s) == 0:
            assert g.legal_actions(s) == [28]
    assert s.placed == [14, 0] and s.remaining[0] == [0, 0] and not s.row[np.array(act.ROW_OWNER) == 0].any()
    assert fill_count(g, s) == 36 - int(np.count_nonzero(s.board == 1))
    assert int(np.count_nonzero(s.board == 2)) == fill_count(g, s) - 14


def test_variant_notation():
    g = variant_game()
    s = _variant_state(g)
    assert g.action_to_str(s, 0) == "A1" and g.action_to_str(s, 27) == "A28" and g.action_to_str(s, 28) == "pass"
    for a in range(g.num_actions):
        assert g.str_to_action(s, g.action_to_str(s, a)) == a
    for bad in ("X1", "A29", "Q3", ""):
        with pytest.raises(IllegalActionError):
            g.str_to_action(s, bad)


# ----- observation and snapshots ------------------------------------------------------------------------
def test_observation_is_seat_relative():
    g = main_game()
    s = render.state_from_text(g, LAKES_MAIN.replace("....~", "AXA.~", 1), marker="a4", roll=5)
    lay = g.layout
    o0, o1 = g.observation(s, 0), g.observation(s, 1)
    assert o0.shape == g.observation_shape == (568,) and o0.dtype == np.float32
    planes0 = o0[: lay.board_size].reshape(lay.num_planes, 6, 9)
    planes1 = o1[: lay.board_size].reshape(lay.num_planes, 6, 9)
    assert planes0[2, 0, 0] == 1 and planes0[5, 0, 1] == 1  # my A, their X
    assert planes1[2, 0, 1] == 1 and planes1[5, 0, 0] == 1  # my X, their A
    assert planes0[0].sum() == 12 and planes0[8, 0, 3] == 1
    assert o0[lay.roll + 4] == 1 and o0[lay.phase] == 1 and o0[lay.roller] == 1 and o1[lay.roller] == 0
    assert o0[lay.mine : lay.mine + 3].tolist() == [6 / 8, 7 / 8, 5 / 8]
    assert o0[lay.theirs : lay.theirs + 3].tolist() == [7 / 8, 7 / 8, 5 / 8]
    assert o1[lay.mine] == 7 / 8 and o1[lay.theirs] == 6 / 8
    assert planes0.sum() == 12 + 3 + 1 and o0.min() >= 0 and o0.max() <= 1
    assert o0[lay.score : lay.score + 2].tolist() == [0, 0]  # no group of two yet


def test_observation_spaces_block():
    """The marker's space and the 8 spaces a roll reaches next: gains per type (mine, then theirs) and room."""
    g = main_game()
    # a1 A, a2 A (my group of 2 for farm), a4 X; marker on a3: between the A pair and the X.
    s = render.state_from_text(g, LAKES_MAIN.replace("....~", "AA.X~", 1), marker="a3", roll=3)
    lay = g.layout
    width = 2 * 3 + 1
    o0, o1 = g.observation(s, 0), g.observation(s, 1)
    assert lay.space_width == width and g.observation_shape == (lay.spaces + 9 * width,)
    here0 = o0[lay.spaces : lay.spaces + width]
    # farm: A joins the pair (size 3: 3 vp - 1 vp = +2), B/C alone 0; wild: X joins the single X (+1)
    assert here0.tolist() == pytest.approx([0.2, 0, 0, 0.1, 0, 0, 0])  # no room: b3 below is a lake
    here1 = o1[lay.spaces : lay.spaces + width]
    assert here1.tolist() == pytest.approx([0.1, 0, 0, 0.2, 0, 0, 0])
    assert o0[lay.score : lay.score + 2].tolist() == pytest.approx([1 / 50, 0])
    # spaces 1..8 are the targets of rolls 1..8, encoded as if the marker stood there
    for k in range(1, 9):
        target = g.target_cell(s, k)
        moved = s.clone()
        moved.pos = target
        block = o0[lay.spaces + k * width : lay.spaces + (k + 1) * width]
        assert block.tolist() == g.observation(moved, 0)[lay.spaces : lay.spaces + width].tolist()
    assert o0[lay.spaces + width : lay.spaces + 2 * width][-1] == pytest.approx(
        0.25 * sum(1 for nb in g.neighbours[g.target_cell(s, 1)] if s.board[nb] == 0)
    )


def test_spaces_block_never_counts_the_markers_own_space():
    """Only a1 (the marker's) and f9 are empty: a1 is filled before the next roll, so every roll reaches f9."""
    g = main_game()
    rows = [".##~####~", "#~#######", "~#######~", "#~#~##~##", "#~#####~A", "##~##~#A."]
    s = render.state_from_text(g, rows, marker="a1")
    lay = g.layout
    f9 = render.state_from_text(g, rows, marker="f9")
    for seat in range(2):
        block = g.observation(s, seat)[lay.spaces :].reshape(9, lay.space_width)
        f9_row = g.observation(f9, seat)[lay.spaces : lay.spaces + lay.space_width]
        assert f9_row.any()  # an A there joins e9 and f8: a group of 3, +3 vp for farm
        for k in range(1, 9):
            assert block[k].tolist() == f9_row.tolist(), k
    # and the rules agree: once a1 is filled (both pass: a marker), every roll lands on f9
    filled = s.clone()
    g.apply(filled, g.pass_action, np.random.default_rng(0))
    g.apply(filled, g.pass_action, np.random.default_rng(0))
    assert filled.board[0] == 2 and filled.pos == 5 * 9 + 8
    filled.pos = 0
    assert {g.target_cell(filled, roll) for roll in range(1, 9)} == {5 * 9 + 8}


def test_spaces_block_is_zero_after_the_last_space():
    """With only the marker's space empty the game ends with this turn: no space is reachable by a next roll."""
    g = main_game()
    rows = ["###~####~", "#~#######", "~#######~", "#~#~##~##", "#~#####~A", "##~##~#A."]
    s = render.state_from_text(g, rows, marker="f9")
    lay = g.layout
    for seat in range(2):
        block = g.observation(s, seat)[lay.spaces :].reshape(9, lay.space_width)
        assert block[0].any()  # f9 itself is worth something (an A there makes a group of 3)
        assert not block[1:].any()


def test_snapshot_rejects_damage():
    g = main_game()
    s = render.state_from_text(g, SCORING_EXAMPLE)
    data = g.state_to_json(s)
    assert state_key(g, g.state_from_json(data)) == state_key(g, s)
    bad = [
        dict(data, tiles=data["tiles"][:-1]),
        dict(data, board=data["board"][:-1]),
        dict(data, board=["A" * 9] + data["board"][1:]),  # lakes do not match tiles
        dict(data, remaining=[[1, 0, 0], [1, 0, 2]]),
        dict(data, placed=[19, 17]),
        dict(data, roll=9),
        dict(data, row="1" * 28),
        {k: v for k, v in data.items() if k != "pos"},
        dict(data, pos=4),  # a lake
        "nonsense",
    ]
    for d in bad:
        with pytest.raises(SnapshotError):
            g.state_from_json(d)


def test_variant_snapshot_round_trip_and_damage():
    g = variant_game()
    s = _variant_state(g)
    g.apply(s, 4, FixedRolls([]))  # the roller pointed at A5; the responder is to choose
    data = g.state_to_json(s)
    back = g.state_from_json(data)
    assert state_key(g, back) == state_key(g, s) and back.choice == 4
    assert np.array_equal(g.legal_mask(back), g.legal_mask(s))
    bad = [
        dict(data, row="0" + data["row"][1:]),  # A1 gone from the row but not on the landscape
        dict(data, choice=1),  # X2 is not the roller's
        dict(data, choice=28),
        dict(data, phase=0),  # a choice outside the responder's phase
        dict(data, row=None),
        dict(data, remaining=[[8, 6, 0], [8, 6]]),
    ]
    for d in bad:
        with pytest.raises(SnapshotError):
            g.state_from_json(d)
