"""bestiarium_v1's score-aware planes (10-55): hand-worked positions, and agreement with what the rules do."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.bestiarium import observation as F
from envs.bestiarium import render
from envs.bestiarium.rules import GROW, BestiariumGame
from envs.common.game import TERMINAL
from tests.bestiarium.test_bestiarium_fast import random_positions

BLACK, WHITE = 0, 1

# Black: a domino d3-d4. White: a straight line e4-e5-e6 touching it (d3 touches e3, e4; d4 touches e4, e5).
LINE_AND_DOMINO = """
a . . . . .
b . . . . . .
c . . . . . . .
d . . X X . . . .
e . . . O O O . . .
f . . . . . . . .
g . . . . . . .
h . . . . . .
i . . . . .
"""
# The same, plus a White triangle h1-h2-i1 (a second shape of size 3: a fauna) and two lone Black stones a1, a5
# (twins: one shape, a species of two).
WITH_FAUNA_AND_TWINS = """
a X . . . X
b . . . . . .
c . . . . . . .
d . . X X . . . .
e . . . O O O . . .
f . . . . . . . .
g . . . . . . .
h O O . . . .
i O . . . .
"""


def plane(game, obs, index):
    """Plane ``index`` of an observation, per cell (cell order)."""
    return obs.reshape(obs.shape[0], -1)[index, game.grid.square_index]


def cells(game, *names):
    return [game.codec.names.index(n) for n in names]


def on(game, obs, index):
    """{cell name: value} where plane ``index`` is non-zero."""
    p = plane(game, obs, index)
    return {game.codec.names[i]: round(float(p[i]), 4) for i in np.flatnonzero(p)}


def test_eat_planes_hand_worked():
    """A third Black stone next to the domino makes a size-3 creature touching the White line: every bent or
    triangular three eats the line (3 stones: 0.3); d2 and d5 would make a straight line, the line's own shape,
    and eat nothing. White has no move that eats (sizes 1 and 2 have one shape)."""
    g = BestiariumGame(board_size=5)
    s = render.state_from_text(g, LINE_AND_DOMINO, to_move=BLACK)
    ob = g.observation(s, BLACK)
    assert on(g, ob, F.MY_EAT) == {"c2": 0.3, "c3": 0.3, "c4": 0.3, "e3": 0.3}
    assert on(g, ob, F.OPP_PREY) == {"e4": 1.0, "e5": 1.0, "e6": 1.0}
    assert on(g, ob, F.OPP_EAT) == {} and on(g, ob, F.MY_PREY) == {}
    ow = g.observation(s, WHITE)  # the same facts from White's side
    assert on(g, ow, F.OPP_EAT) == on(g, ob, F.MY_EAT)
    assert on(g, ow, F.MY_PREY) == on(g, ob, F.OPP_PREY)
    for name in ("c2", "c3", "c4", "e3", "d2", "d5"):  # what the rules then do
        t = g.clone(s)
        g.apply(t, g.codec.names.index(name))
        eaten = sum(1 for x in cells(g, "e4", "e5", "e6") if t.color[x] == 0)
        assert eaten == (0 if name in ("d2", "d5") else 3), name


def test_cascade_planes_hand_worked():
    """Black: two lone stones (a species of two at size 1: -2) and the domino (-4 at size 2). White: the line
    and the triangle (a fauna of two shapes at size 3: +2 x 9). Size 3 decides, for White."""
    g = BestiariumGame(board_size=5)
    s = render.state_from_text(g, WITH_FAUNA_AND_TWINS, to_move=BLACK)
    assert g.size_values(s, BLACK) == {1: -2, 2: -4} and g.size_values(s, WHITE) == {3: 18}
    ob, ow = g.observation(s, BLACK), g.observation(s, WHITE)
    const = lambda obs, i: float(obs[i, 0, 0])  # noqa: E731 - constant planes: any square
    for obs in (ob, ow):
        for i in range(F.MY_VALUE, F.DECIDING_SIZE + 1):
            assert np.all(obs[i] == obs[i, 0, 0]), i
    # per size: v / s^2 * 0.25 (a fauna's shape count, minus a species' creature count)
    assert [const(ob, F.MY_VALUE + s - 1) for s in (1, 2, 3, 4)] == [-0.5, -0.25, 0.0, 0.0]
    assert [const(ob, F.OPP_VALUE + s - 1) for s in (1, 2, 3, 4)] == [0.0, 0.0, 0.5, 0.0]
    assert [const(ob, F.COMPARE + s - 1) for s in (1, 2, 3, 4)] == [-1.0, -1.0, -1.0, 0.0]
    assert const(ob, F.VERDICT) == -1.0 and const(ow, F.VERDICT) == 1.0
    assert const(ob, F.DECIDING_SIZE) == const(ow, F.DECIDING_SIZE) == pytest.approx(3 / 12)
    assert [const(ow, F.MY_VALUE + s - 1) for s in (1, 2, 3)] == [0.0, 0.0, 0.5]
    # per cell: White's fauna, Black's twins
    assert set(on(g, ob, F.OPP_FAUNA)) == {"e4", "e5", "e6", "h1", "h2", "i1"}
    assert on(g, ob, F.MY_FAUNA) == {} and set(on(g, ow, F.MY_FAUNA)) == set(on(g, ob, F.OPP_FAUNA))
    assert set(on(g, ob, F.MY_TWIN)) == {"a1", "a5"} and on(g, ob, F.OPP_TWIN) == {}
    # the domino's species of one is no twin; the line's eaters still eat it (sizes and shapes unchanged)
    assert on(g, ob, F.MY_EAT) == {"c2": 0.3, "c3": 0.3, "c4": 0.3, "e3": 0.3}


def test_value_planes_are_clipped():
    """Five lone stones: -5 at size 1, -1.25 scaled, clipped to -1 (the Box's low bound)."""
    g = BestiariumGame(board_size=5)
    board = LINE_AND_DOMINO.replace("a . . . . .", "a X . X . X").replace("i . . . . .", "i X . X . .")
    s = render.state_from_text(g, board, to_move=BLACK)
    assert g.size_values(s, BLACK)[1] == -5
    assert float(g.observation(s, BLACK)[F.MY_VALUE, 0, 0]) == -1.0


def test_verdict_is_the_cascade_now_and_the_final_result_at_the_end():
    """On random positions the verdict plane is the sign of the first differing size of the cascade (mover's
    view); at a finished game that differs from the result only when every size ties (the pass tie-break)."""
    g = BestiariumGame(board_size=5)
    seen = 0
    for s in random_positions(g, 150, seed=3):
        for seat in (0, 1):
            v = float(g.observation(s, seat)[F.VERDICT, 0, 0])
            diffs = [(a - b) if seat == 0 else (b - a) for _, a, b in g.cascade(s) if a != b]
            assert v == (np.sign(diffs[0]) if diffs else 0.0)
            if g.current_player(s) == TERMINAL and diffs:
                seen += 1
                assert v == g.returns(s)[seat]
    assert seen > 0


@pytest.mark.parametrize("eq", ["free", "fixed"])
def test_eat_plane_is_what_a_placement_eats(eq):
    """For the player to move, every cell's eat entry is the number of enemy stones (/10) that placing (or, in
    the grow phase, growing) there removes at once, and the prey plane is the union of those stones; for the
    other player likewise with the turn handed to it."""
    g = BestiariumGame(board_size=5, shape_equivalence=eq)
    eats = 0
    for s in random_positions(g, 80, seed=11):
        if g.current_player(s) == TERMINAL:
            continue
        mover = s.to_move
        views = [(mover, s)]
        if s.phase != GROW:  # the opponent's plane: the same board with the opponent to place
            views.append((1 - mover, render.state_from_text(g, render.board_text(g, s), to_move=1 - mover)))
        for seat, pos in views:
            ob = g.observation(s, mover)
            eat_plane = plane(g, ob, F.MY_EAT if seat == mover else F.OPP_EAT)
            prey_plane = plane(g, ob, F.OPP_PREY if seat == mover else F.MY_PREY)
            prey = np.zeros(g.num_cells, dtype=bool)
            for a in g.legal_actions(pos):
                if a == g.pass_action:
                    continue
                t = g.clone(pos)
                before = np.frombuffer(bytes(t.color), dtype=np.uint8) == 2 - seat
                g.apply(t, a)
                gone = before & (np.frombuffer(bytes(t.color), dtype=np.uint8) == 0)
                assert eat_plane[a] == np.float32(min(gone.sum() * 0.1, 1.0)), (render.board_text(g, pos), a)
                prey |= gone
                eats += int(gone.any())
            assert np.array_equal(prey_plane > 0, prey)
    assert eats > 5


def test_v0_is_retired_with_pettingzoos_error():
    import importlib

    from pettingzoo.utils.deprecated_module import DeprecatedEnv

    with pytest.raises(DeprecatedEnv, match="bestiarium_v1"):
        importlib.import_module("envs.bestiarium_v0")
    with pytest.raises(DeprecatedEnv):
        _ = envs.bestiarium_v0  # the attribute access itself raises
    assert envs.module("bestiarium").__name__ == "envs.bestiarium_v1"
    assert envs.ENV_IDS["bestiarium"] == "barnyard/bestiarium-v1"
    import pettingzoo

    env = pettingzoo.make("aec", "barnyard/bestiarium-v1")
    env.reset(seed=0)
    assert env.observe(env.agents[0])["observation"].shape == (56, 11, 11)
