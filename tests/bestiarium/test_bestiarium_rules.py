"""Bestiarium rule tests on hand-made text boards (board_size 5 unless said: rows a..i, 5 to 9 cells).

Text boards: ``.`` empty, ``X`` Black, ``O`` White; lower case marks the creature that must grow.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.bestiarium import render
from envs.bestiarium.observation import (
    PLANE_BOARD,
    PLANE_CHAIN,
    PLANE_EMPTY,
    PLANE_GROW,
    PLANE_LEGAL,
    PLANE_ME,
    PLANE_MY_SIZE,
    PLANE_OPP,
    PLANE_OPP_SIZE,
    PLANE_PASS,
)
from envs.bestiarium.rules import GROW, PLACE, PLY_CAP_PER_CELL, BestiariumGame
from envs.common.game import TERMINAL, ConfigError, IllegalActionError, SnapshotError

BLACK, WHITE = 0, 1


def small(**options) -> BestiariumGame:
    return BestiariumGame(board_size=5, **options)


def play(g: BestiariumGame, s, *moves: str) -> None:
    for m in moves:
        g.apply(s, g.str_to_action(s, m))


def legal_names(g: BestiariumGame, s) -> list[str]:
    return [g.action_to_str(s, a) for a in g.legal_actions(s)]


def cell(g: BestiariumGame, name: str) -> int:
    return g.codec.index[name]


def stone(g: BestiariumGame, s, name: str) -> str:
    return ".XO"[s.color[cell(g, name)]]


def finished(g: BestiariumGame, text: str, first_passer: int):
    """A game over position with this board, ended by two passes of which ``first_passer`` made the first."""
    data = g.state_to_json(render.state_from_text(g, text))
    data.update(passes=2, over=True, first_passer=first_passer, to_move=first_passer)
    return g.state_from_json(data)


# ----- options ---------------------------------------------------------------------------------------
def test_default_options_and_sizes():
    g = BestiariumGame()
    assert g.options() == {"board_size": 6, "shape_equivalence": "free"}
    assert (g.num_cells, g.num_actions, g.observation_shape) == (91, 92, (56, 11, 11))
    assert g.max_game_length == PLY_CAP_PER_CELL * 91
    assert BestiariumGame(board_size=5).num_cells == 61
    assert BestiariumGame(board_size=7).num_cells == 127
    assert BestiariumGame(board_size=7).observation_shape == (56, 13, 13)


@pytest.mark.parametrize("bad", [4, 8, 0, -6, 6.0, "6", True, None])
def test_bad_board_size_is_a_clear_error(bad):
    with pytest.raises(ConfigError, match="board_size"):
        BestiariumGame(board_size=bad)


@pytest.mark.parametrize("bad", ["mirror", "FREE", 1, None])
def test_bad_shape_equivalence_is_a_clear_error(bad):
    with pytest.raises(ConfigError, match="'free', 'one_sided', 'fixed'"):
        BestiariumGame(shape_equivalence=bad)


def test_initial_state_black_first_every_cell_open():
    g = BestiariumGame()
    s = g.initial_state(np.random.default_rng(0))
    assert g.current_player(s) == BLACK and s.phase == PLACE
    mask = g.legal_mask(s)
    assert mask.dtype == np.int8 and mask[:-1].all() and mask[-1] == 0
    play(g, s, "f6")
    assert g.current_player(s) == WHITE


# ----- placement ---------------------------------------------------------------------------------------
MERGE = """
    . . . . .
   . . . . . .
  . . . . . . .
 . . . . . . . .
. . . X . X . . .
 . . . . . . . .
  . . . . . . .
   . . . . . .
    . . . . .
"""


def test_placing_next_to_two_friendly_creatures_is_illegal():
    g = small()
    s = render.state_from_text(g, MERGE)
    e5 = cell(g, "e5")
    assert g.legal_mask(s)[e5] == 0
    before = g.state_to_json(s)
    with pytest.raises(IllegalActionError, match="merge"):
        g.apply(s, e5)
    assert g.state_to_json(s) == before
    # White may play there; Black may extend one creature (d4 touches only the e4 stone).
    assert g.legal_mask(render.state_from_text(g, MERGE, to_move=WHITE))[e5] == 1
    play(g, s, "d4")
    assert sorted(map(len, g.creatures(s, BLACK))) == [1, 2]


def test_occupied_cell_is_illegal():
    g = small()
    s = render.state_from_text(g, MERGE)
    with pytest.raises(IllegalActionError, match="occupied"):
        g.apply(s, cell(g, "e4"))


# ----- eating --------------------------------------------------------------------------------------------
# Black e4 e5 (+ e6 = a straight line of 3). White next to it: a triangle c3 d3 d4, a bent three d6 c6 c7,
# a straight three f4 g4 h4 (same shape as Black's), and a four f6 f7 f8 g7.
FEAST = """
    . . . . .
   . . . . . .
  . . O . . O O
 . . O O . O . .
. . . X X . . . .
 . . . O . O O O
  . . . O . . O
   . . . O . .
    . . . . .
"""


def test_eats_every_adjacent_same_size_different_shape_creature_at_once():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6")
    for name in ("c3", "d3", "d4", "d6", "c6", "c7"):  # triangle and bent three: eaten
        assert stone(g, s, name) == "."
    for name in ("f4", "g4", "h4", "f6", "f7", "f8", "g7"):  # same shape / other size: kept
        assert stone(g, s, name) == "O"
    assert s.phase == GROW and g.current_player(s) == BLACK
    assert legal_names(g, s) == ["+d3", "+d4", "+d5", "+d6", "+e3", "+e7", "+f3", "+f5"]


def test_grow_phase_mask_and_rejections():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6")
    mask = g.legal_mask(s)
    assert mask[g.pass_action] == 0
    with pytest.raises(IllegalActionError, match="must grow"):
        g.apply(s, g.pass_action)
    with pytest.raises(IllegalActionError, match="not next to"):
        g.apply(s, cell(g, "a1"))
    with pytest.raises(IllegalActionError, match="occupied"):
        g.apply(s, cell(g, "f6"))


def test_chain_of_two_eats_in_one_turn():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6", "+e7")  # a straight four: differs from White's four f6 f7 f8 g7 -> eats it too
    for name in ("f6", "f7", "f8", "g7"):
        assert stone(g, s, name) == "."
    assert s.phase == GROW and g.current_player(s) == BLACK
    assert len(s.members[s.chain]) == 4
    play(g, s, "+e8")  # size 5: nothing of size 5 next to it -> the turn ends
    assert s.phase == PLACE and g.current_player(s) == WHITE
    assert [len(c) for c in g.creatures(s, BLACK)] == [5]
    assert s.plies == 3


def test_growth_into_the_same_shape_ends_the_chain():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6", "+f5")  # e4 e5 e6 f5: the same shape as White's four (a translate) -> no second eat
    for name in ("f6", "f7", "f8", "g7"):
        assert stone(g, s, name) == "O"
    assert s.phase == PLACE and g.current_player(s) == WHITE


def test_same_shape_and_other_sizes_are_not_eaten():
    g = small()
    s = render.state_from_text(
        g, FEAST.replace("  . . O . . O O", "  . . . . . . .").replace(" . . O O . O . .", " . . . . . . . .")
    )
    play(g, s, "e6")  # only the straight three (same shape) and the four are adjacent
    assert s.phase == PLACE and g.current_player(s) == WHITE
    assert sorted(len(c) for c in g.creatures(s, WHITE)) == [3, 4]


# White S-tetrahex c2 c3 d1 d2; Black places d3 to complete its mirror image f1 e2 e3 d3.
MIRROR = """
    . . . . .
   . . . . . .
  . O O . . . .
 O O . . . . . .
. X X . . . . . .
 X . . . . . . .
  . . . . . . .
   . . . . . .
    . . . . .
"""


def test_mirror_images_are_the_same_shape_under_free():
    g = small()
    s = render.state_from_text(g, MIRROR)
    play(g, s, "d3")
    assert [len(c) for c in g.creatures(s, WHITE)] == [4]  # not eaten
    assert g.current_player(s) == WHITE


def test_mirror_images_differ_under_one_sided():
    g = small(shape_equivalence="one_sided")
    s = render.state_from_text(g, MIRROR)
    play(g, s, "d3")
    assert g.creatures(s, WHITE) == []
    assert s.phase == GROW and g.current_player(s) == BLACK


# White straight three e1 e2 e3 (E-W); Black places f3 to make the straight three h1 g2 f3 (SW-NE).
ROTATED = """
    . . . . .
   . . . . . .
  . . . . . . .
 . . . . . . . .
O O O . . . . . .
 . . . . . . . .
  . X . . . . .
   X . . . . .
    . . . . .
"""


@pytest.mark.parametrize("equivalence, eaten", [("free", False), ("one_sided", False), ("fixed", True)])
def test_rotations_are_equal_unless_fixed(equivalence, eaten):
    g = small(shape_equivalence=equivalence)
    s = render.state_from_text(g, ROTATED)
    play(g, s, "f3")
    assert (g.creatures(s, WHITE) == []) == eaten
    assert (s.phase == GROW) == eaten


def test_sizes_one_and_two_have_one_shape_when_free():
    g = small()
    center = cell(g, "e5")
    dominoes = [[center, j] for j in g.nbrs[center]]
    assert len({g.shape_id(d) for d in dominoes}) == 1
    assert len({small(shape_equivalence="one_sided").shape_id(d) for d in dominoes}) == 1
    assert len({small(shape_equivalence="fixed").shape_id(d) for d in dominoes}) == 3
    assert not g.same_shape([center], dominoes[0])


# Black a1 a2 (+ a3 = a straight three) next to White's triangle b1 b2 c2. Every cell next to the line is
# occupied or touches another Black creature (a5, c1, c3 c4), the freed b1 and b2 too.
STARVED = """
    X X . . X
   O O . . . .
  X O X X . . .
 . . . . . . . .
. . . . . . . . .
 . . . . . . . .
  . . . . . . .
   . . . . . .
    . . . . .
"""


def test_a_creature_that_cannot_grow_cannot_eat():
    g = small()
    s = render.state_from_text(g, STARVED)
    play(g, s, "a3")
    assert [len(c) for c in g.creatures(s, WHITE)] == [3]  # the triangle survives
    assert s.phase == PLACE and g.current_player(s) == WHITE


def test_freed_cells_allow_growth():
    g = small()
    s = render.state_from_text(g, STARVED.replace("  X O X X", "  . O X X"))  # without c1, freed b1 is a growth cell
    play(g, s, "a3")
    assert g.creatures(s, WHITE) == []
    assert s.phase == GROW and legal_names(g, s) == ["+b1"]
    with pytest.raises(IllegalActionError, match="merge"):  # freed b2 also touches Black c3 c4
        g.apply(s, cell(g, "b2"))
    with pytest.raises(IllegalActionError, match="merge"):  # a4 also touches Black a5
        g.apply(s, cell(g, "a4"))
    play(g, s, "+b1")
    assert g.current_player(s) == WHITE
    assert sorted(len(c) for c in g.creatures(s, BLACK)) == [1, 2, 4]


# ----- passing and the end ---------------------------------------------------------------------------------
# Full stripes: c4 touches two Black and two White creatures; b6 touches only White's row b.
STRIPES = """
    X X X X X
   O O O O O .
  X X X . X X X
 O O O O O O O O
X X X X X X X X X
 O O O O O O O O
  X X X X X X X
   O O O O O O
    X X X X X
"""


def test_forced_pass_and_end_after_two_passes():
    g = small()
    s = render.state_from_text(g, STRIPES)
    assert legal_names(g, s) == ["pass"]
    play(g, s, "pass")
    assert g.current_player(s) == WHITE and s.passes == 1
    assert legal_names(g, s) == ["b6"]
    with pytest.raises(IllegalActionError, match="only allowed"):
        g.apply(s, g.pass_action)
    play(g, s, "b6")  # a placement resets the passes
    assert s.passes == 0 and s.first_passer == -1
    play(g, s, "pass")
    assert not g.is_terminal(s) and legal_names(g, s) == ["pass"]
    play(g, s, "pass")
    assert g.is_terminal(s) and g.current_player(s) == TERMINAL
    assert s.first_passer == BLACK and s.plies == 4
    assert not g.legal_mask(s).any() and g.legal_actions(s) == []
    with pytest.raises(IllegalActionError, match="over"):
        g.apply(s, 0)
    # Cascade: Black's lone straight nine (-81) against White's nothing of size 9 (0): White wins.
    assert g.cascade(s)[0] == (9, -81, 0)
    assert list(g.returns(s)) == [-1.0, 1.0] and g.winner(s) == WHITE


# ----- scoring cascade ---------------------------------------------------------------------------------------
FAUNA_VS_SPECIES = """
    X X X . .
   . . . . . .
  . . . . . X X
 . . . . . . X .
. . . . . . . . .
 . . . . . . . .
  . . . . . . .
   . . . . . .
    O O O . .
"""


def test_fauna_beats_species():
    g = small()
    s = finished(g, FAUNA_VS_SPECIES, first_passer=WHITE)  # the tie-break would favour White
    assert g.size_values(s, BLACK) == {3: 18}  # two shapes of size 3: +2 * 9
    assert g.size_values(s, WHITE) == {3: -9}  # a lone creature: -9
    assert list(g.returns(s)) == [1.0, -1.0]
    assert list(g.scores(s)) == [18.0, -9.0]


def test_species_counts_every_creature_and_fauna_counts_shapes():
    g = small()
    text = """
    X X X O .
   . . O O . .
  O . . . . X X
 . . . . . . X O
X . . . . . . O O
 X . . . . . . .
  X . . . . . .
   . . . . X .
    . . X X .
"""
    s = finished(g, text, first_passer=WHITE)
    # Black: straight a1-a3 and e1-g1, triangle c6 c7 d7, bent i3 i4 h5: 4 creatures, 3 shapes -> +3 * 9.
    assert g.size_values(s, BLACK) == {3: 3 * 9}
    # White: triangle d8 e8 e9 and bent b3 b4 a4 -> +2 * 9; the lone stone c1 -> -1.
    assert g.size_values(s, WHITE) == {3: 2 * 9, 1: -1}
    assert list(g.returns(s)) == [1.0, -1.0]


def test_larger_size_decides_first():
    g = small()
    text = """
    X X X X X
   . . . . . .
  . . . . . . .
 . . . . . . . .
X . . . . . . . .
 X . . . . . X .
  X . . . . X X
   . . . . . .
    O O O . .
"""
    s = finished(g, text, first_passer=BLACK)
    # size 5: Black's lone line -25 against White's 0 -> White wins though Black has a fauna of size 3.
    assert g.size_values(s, BLACK) == {5: -25, 3: 18}
    assert g.cascade(s)[0] == (5, -25, 0)
    assert list(g.returns(s)) == [-1.0, 1.0]


def test_tie_goes_to_the_next_smaller_size():
    g = small()
    text = """
    X X X X .
   . . . . . .
  . . . . . . .
 O O O O . . . .
. . . . . . . . .
 . . . . . . X X
  . . . . . X .
   O O O . . .
    . . . O O
"""
    s = finished(g, text, first_passer=WHITE)
    rows = g.cascade(s)
    assert rows[0] == (4, -16, -16)  # tie at size 4
    assert rows[1] == (3, -9, -9)  # tie at size 3 (Black's bent three vs White's straight three: both species)
    assert rows[2] == (2, 0, -4)  # Black's nothing beats White's lone domino
    assert list(g.returns(s)) == [1.0, -1.0]


@pytest.mark.parametrize("first", [BLACK, WHITE])
def test_all_tied_first_of_the_final_passes_wins(first):
    g = small()
    text = """
    X . . . .
   . . . . . .
  . . . . . . .
 . . . . . . . .
. . . . . . . . .
 . . . . . . . .
  . . . . . . .
   . . . . . .
    . . . . O
"""
    s = finished(g, text, first_passer=first)
    assert all(b == w for _, b, w in g.cascade(s))
    assert g.winner(s) == first
    expected = [1.0, -1.0] if first == BLACK else [-1.0, 1.0]
    assert list(g.returns(s)) == expected and g.returns(s).sum() == 0
    assert list(g.scores(s)) == [0.0, 0.0]


def test_returns_are_zero_while_live():
    g = small()
    s = render.state_from_text(g, FAUNA_VS_SPECIES)
    assert list(g.returns(s)) == [0.0, 0.0]


def test_ply_cap_truncates():
    g = small()
    data = g.state_to_json(render.state_from_text(g, MERGE))
    data["plies"] = g.max_game_length - 1
    s = g.state_from_json(data)
    assert not g.is_truncated(s)
    play(g, s, "a1")
    assert g.is_truncated(s) and not g.is_terminal(s)
    assert list(g.returns(s)) == [0.0, 0.0]


# ----- notation, observation, snapshots, pictures ------------------------------------------------------------
def test_cell_names_follow_the_diagram():
    g = small()
    assert g.codec.names[0] == "a1" and g.codec.names[4] == "a5" and g.codec.names[5] == "b1"
    assert g.grid.coords[cell(g, "e5")] == (0, 0)
    assert g.codec.names[-1] == "i5"
    assert len(set(g.codec.names)) == g.num_cells


@pytest.mark.parametrize("size", [5, 6, 7])
def test_action_codec_round_trip(size):
    g = BestiariumGame(board_size=size)
    s = g.initial_state()
    texts = set()
    for a in range(g.num_actions):
        text = g.action_to_str(s, a)
        texts.add(text)
        assert g.str_to_action(s, text) == a
        assert g.str_to_action(s, text.upper()) == a
        assert g.str_to_action(s, str(a)) == a
    assert len(texts) == g.num_actions and g.action_to_str(s, g.pass_action) == "pass"
    with pytest.raises(IllegalActionError):
        g.str_to_action(s, "z9")
    with pytest.raises(IllegalActionError):
        g.action_to_str(s, g.num_actions)


def test_growth_notation():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6")
    for a in range(g.num_cells):
        text = g.action_to_str(s, a)
        assert text == "+" + g.codec.names[a]
        assert g.str_to_action(s, text) == g.str_to_action(s, text[1:]) == a


def test_observation_planes():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6")  # Black must grow its line e4 e5 e6
    side = 9
    sq = g.grid.square_index

    def at(obs, plane, name):
        return obs.reshape(56, -1)[plane, sq[cell(g, name)]]

    ob, ow = g.observation(s, BLACK), g.observation(s, WHITE)
    assert ob.shape == (56, side, side) and ob.dtype == np.float32
    assert at(ob, PLANE_ME, "e5") == 1 and at(ob, PLANE_OPP, "e5") == 0
    assert at(ow, PLANE_ME, "e5") == 0 and at(ow, PLANE_OPP, "e5") == 1
    assert at(ob, PLANE_OPP, "f6") == 1 and at(ow, PLANE_ME, "f6") == 1
    assert at(ob, PLANE_EMPTY, "d4") == 1 and at(ob, PLANE_EMPTY, "e5") == 0
    assert ob[PLANE_BOARD].sum() == g.num_cells and ob[PLANE_BOARD, 0, 0] == 0
    assert ob[PLANE_CHAIN].sum() == 3 and at(ob, PLANE_CHAIN, "e6") == 1
    assert ob[PLANE_GROW].all() and not ob[PLANE_PASS].any()
    # Each on-board square is exactly one of me / opponent / empty.
    assert np.array_equal(ob[:3].sum(axis=0), ob[PLANE_BOARD])
    t = render.state_from_text(g, STRIPES)
    play(g, t, "pass")
    o = g.observation(t, WHITE)
    assert o[PLANE_PASS].all() and not o[PLANE_GROW].any() and not o[PLANE_CHAIN].any()


def test_observation_size_and_legal_planes():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6")  # Black's line e4 e5 e6 (3 stones) must grow
    sq = g.grid.square_index
    ob, ow = g.observation(s, BLACK).reshape(56, -1), g.observation(s, WHITE).reshape(56, -1)
    assert ob[PLANE_MY_SIZE, sq[cell(g, "e5")]] == pytest.approx(0.3)
    assert ow[PLANE_OPP_SIZE, sq[cell(g, "e5")]] == pytest.approx(0.3)
    # every stone shows its creature's size (counted here by flood fill over the text board), nothing else does
    color = list(s.color)
    for c in range(g.num_cells):
        if not color[c]:
            assert ob[PLANE_MY_SIZE, sq[c]] == ob[PLANE_OPP_SIZE, sq[c]] == 0
            continue
        seen, stack = {c}, [c]
        while stack:
            for nb in g.grid.neighbors[stack.pop()]:
                if nb >= 0 and color[nb] == color[c] and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
        mine = color[c] == BLACK + 1
        assert ob[PLANE_MY_SIZE if mine else PLANE_OPP_SIZE, sq[c]] == pytest.approx(min(1, len(seen) / 10))
        assert ow[PLANE_OPP_SIZE if mine else PLANE_MY_SIZE, sq[c]] == pytest.approx(min(1, len(seen) / 10))
    # the legal plane is the place-phase mask of its observer
    t = render.state_from_text(g, FEAST)
    for seat in (BLACK, WHITE):
        t.to_move = seat
        o = g.observation(t, seat).reshape(56, -1)
        assert np.array_equal(o[PLANE_LEGAL, sq], g.legal_mask(t)[: g.num_cells].astype(np.float32))


def test_snapshot_round_trip_mid_chain():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6")
    data = json.loads(json.dumps(g.state_to_json(s)))
    assert data["phase"] == "grow" and data["chain"] == sorted([cell(g, n) for n in ("e4", "e5", "e6")])
    back = g.state_from_json(data)
    assert g.state_to_json(back) == data
    assert np.array_equal(g.legal_mask(back), g.legal_mask(s))
    play(g, back, "+e7")
    play(g, s, "+e7")
    assert g.state_to_json(back) == g.state_to_json(s)


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.pop("board"),
        lambda d: d.update(board=d["board"][:-1]),
        lambda d: d.update(board="Z" + d["board"][1:]),
        lambda d: d.update(to_move=2),
        lambda d: d.update(to_move=True),
        lambda d: d.update(phase="eat"),
        lambda d: d.update(chain=[0]),  # a1 is empty
        lambda d: d.update(chain=[10**6]),
        lambda d: d.update(passes=1),  # no first passer
        lambda d: d.update(over=True),
        lambda d: d.update(plies=-1),
        lambda d: d.update(first_passer=0),
    ],
)
def test_damaged_snapshots_raise(damage):
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6")
    data = g.state_to_json(s)
    damage(data)
    with pytest.raises(SnapshotError):
        g.state_from_json(data)


def test_text_board_errors_and_round_trip():
    g = small()
    s = render.state_from_text(g, FEAST)
    assert g.state_to_json(render.state_from_text(g, render.board_text(g, s))) == g.state_to_json(s)
    with pytest.raises(ValueError):
        render.state_from_text(g, ". . .")
    with pytest.raises(ValueError):
        render.state_from_text(g, FEAST.replace(". . . X X", ". . . X Q"))


def test_renderings():
    g = small()
    s = render.state_from_text(g, FEAST)
    play(g, s, "e6")
    text = g.render_ansi(s)
    assert "x x x" in text and "must grow" in text
    img = g.render_rgb(s)
    assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
