"""Battle Sheep rules, one by one, on hand-made positions (text boards: see render.board_from_text)."""

import numpy as np
import pytest

from envs.battle_sheep.actions import MAX_MOVE
from envs.battle_sheep.render import board_from_text
from envs.battle_sheep.rules import (
    BUILD,
    EMPTY,
    MOVE,
    NO_PASTURE,
    OVER,
    PLACE,
    BattleSheepGame,
)
from envs.common.game import ConfigError, IllegalActionError
from envs.common.hexgrid import DIRECTION_NAMES, hex_distance
from envs.common.testing import state_key

RNG = np.random.default_rng(0)


def cell_at(game, state, token_seat, height):
    """The single cell holding a stack of ``token_seat`` with ``height`` sheep."""
    found = [c for c in state.stacks[token_seat] if state.heights[c] == height]
    assert len(found) == 1
    return found[0]


def move_str(game, cell, direction, count):
    q, r = game.grid.coords[cell]
    return f"{q},{r} {direction} {count}"


# ----- options ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"num_players": 1}, "from 2 to 4"),
        ({"num_players": 5}, "from 2 to 4"),
        ({"pasture": "hex"}, "'build', 'random'"),
        ({"end_rule": "chess"}, "'battle_sheep', 'splits'"),
        ({"num_players": 3, "end_rule": "splits"}, "num_players=2"),
        ({"canvas_radius": 2}, "too small for 2 players.*from 6 to 16"),
        ({"canvas_radius": 17}, "from 6 to 16"),
    ],
)
def test_bad_options_raise_clear_errors(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment):
        BattleSheepGame(**kwargs)


# ----- pasture building -----------------------------------------------------------------------------------------
def test_tile_is_a_rhombus_of_two_neighbours_and_their_two_common_neighbours():
    game = BattleSheepGame()
    shapes = set()
    for action in range(game.codec.stack_base):
        tile = game.tile_cells[action]
        if tile is None:
            continue
        coords = [game.grid.coords[c] for c in tile]
        a, b, c, d = coords
        assert hex_distance(a, b) == 1
        for x in (c, d):
            assert hex_distance(x, a) == 1 and hex_distance(x, b) == 1
        assert hex_distance(c, d) == 2
        shapes.add(frozenset((q - a[0], r - a[1]) for q, r in coords))
    assert len(shapes) == 3  # three orientations


def test_first_tile_covers_the_centre_and_later_tiles_share_an_edge_without_overlap():
    game = BattleSheepGame()
    state = game.initial_state(RNG)
    legal = game.legal_actions(state)
    assert legal == [game.center * 3 + o for o in range(3)]
    game.apply(state, legal[0], RNG)
    pasture = {i for i, c in enumerate(state.cells) if c != NO_PASTURE}
    assert len(pasture) == 4 and state.to_move == 1
    for action in range(game.codec.stack_base):
        tile = game.tile_cells[action]
        ok = (
            tile is not None
            and not pasture & set(tile)
            and any(j in pasture for c in tile for j in game.grid.neighbor_lists[c])
        )
        assert bool(game.legal_mask(state)[action]) == ok, game.action_to_str(state, action)
    overlapping = next(
        a for a in range(game.codec.stack_base) if game.tile_cells[a] and set(game.tile_cells[a]) & pasture
    )
    with pytest.raises(IllegalActionError, match="overlap"):
        game.apply(state, overlapping, RNG)
    far = game.codec.tile(game.grid.index[(5, 0)], 0)
    with pytest.raises(IllegalActionError, match="share an edge"):
        game.apply(state, far, RNG)


def test_building_takes_four_tiles_each_in_clockwise_order_then_stacks_start_with_player_0():
    for n in (2, 3, 4):
        game = BattleSheepGame(num_players=n)
        state = game.initial_state(RNG)
        order = []
        while state.phase == BUILD:
            order.append(state.to_move)
            legal = game.legal_actions(state)
            game.apply(state, legal[RNG.integers(len(legal))], RNG)
        assert order == list(range(n)) * 4
        assert state.phase == PLACE and state.to_move == 0
        assert state.num_pasture == 16 * n and state.tiles_left == [0] * n


def test_random_pasture_option_builds_a_legal_pasture_reproducibly():
    game = BattleSheepGame(num_players=3, pasture="random")
    a = game.initial_state(np.random.default_rng(7))
    b = game.initial_state(np.random.default_rng(7))
    c = game.initial_state(np.random.default_rng(8))
    assert a.phase == PLACE and a.to_move == 0 and a.num_pasture == 48
    assert state_key(game, a) == state_key(game, b) != state_key(game, c)
    pasture = [x != NO_PASTURE for x in a.cells]
    assert len(game.grid.components(pasture)) == 1  # every tile touched the pasture


# ----- stack placement --------------------------------------------------------------------------------------------
HOLE_BOARD = """
 .  .  .  .
   .  .  .  .
 .  .  _  .  .
   .  .  .  .
 .  .  .  .
"""


def test_stacks_go_on_the_outside_border_not_next_to_an_interior_hole():
    game = BattleSheepGame()
    state = board_from_text(game, HOLE_BOARD)
    assert state.phase == PLACE and state.to_move == 0
    hole = next(
        i
        for i in range(game.grid.num_cells)
        if state.cells[i] == NO_PASTURE and sum(state.cells[j] != NO_PASTURE for j in game.grid.neighbor_lists[i]) == 6
    )
    around_hole = set(game.grid.neighbor_lists[hole])
    legal_cells = {a - game.codec.stack_base for a in game.legal_actions(state)}
    pasture = {i for i, c in enumerate(state.cells) if c == EMPTY}
    outside = {
        i for i in pasture if any(j != hole and state.cells[j] == NO_PASTURE for j in game.grid.neighbor_lists[i])
    }
    assert legal_cells == outside
    assert not around_hole & outside  # cells touching only the hole are not on the outside border
    assert len(outside) == len(pasture) - 6
    with pytest.raises(IllegalActionError, match="outside border"):
        game.apply(state, game.codec.stack(min(around_hole)), RNG)


def test_stack_placement_in_turn_order_then_first_placer_moves_first():
    game = BattleSheepGame(num_players=3)
    state = board_from_text(game, HOLE_BOARD)
    for seat in range(3):
        assert state.to_move == seat
        cell = game.legal_actions(state)[0] - game.codec.stack_base
        game.apply(state, game.codec.stack(cell), RNG)
        assert state.cells[cell] == seat and state.heights[cell] == 16
        assert game.codec.stack(cell) not in game.legal_actions(state)  # occupied now
    assert state.phase == MOVE and state.to_move == 0


# ----- moves --------------------------------------------------------------------------------------------------------
def test_a_split_slides_as_far_as_it_can_and_stops_before_a_stack():
    game = BattleSheepGame()
    state = board_from_text(
        game,
        """
    A16 .  .  B16 .
    """,
    )
    a = cell_at(game, state, 0, 16)
    b = cell_at(game, state, 1, 16)
    moves = {(c, DIRECTION_NAMES[d]): (dest, k) for c, d, dest, k in game.legal_moves(state)}
    assert moves == {(a, "E"): (game.grid.rays[a][0][1], 15)}  # stops on the cell before B
    action = game.str_to_action(state, move_str(game, a, "E", 5))
    game.apply(state, action, RNG)
    dest = game.grid.rays[a][0][1]
    assert state.heights[a] == 11 and state.heights[dest] == 5 and state.cells[dest] == 0
    assert state.to_move == 1 and game.grid.rays[b][0][0] in [d for _, _, d, _ in game.legal_moves(state)]


def test_sheep_stop_at_the_pasture_edge_and_before_a_hole():
    game = BattleSheepGame()
    state = board_from_text(
        game,
        """
    A16 .  .  _  .  B16
    """,
    )
    a = cell_at(game, state, 0, 16)
    ((c, d, dest, k),) = game.legal_moves(state)
    assert (c, DIRECTION_NAMES[d], dest) == (a, "E", game.grid.rays[a][0][1])  # stops before the gap


def test_direction_whose_first_cell_is_blocked_is_illegal_and_one_sheep_must_stay():
    game = BattleSheepGame()
    state = board_from_text(
        game,
        """
    A16 B16 .
    """,
    )
    a = cell_at(game, state, 0, 16)
    assert game.legal_moves(state, seat=0) == []  # A is blocked: only B can move -> B to move
    assert state.to_move == 1
    state = board_from_text(
        game,
        """
    A2 . B16
    """,
    )
    a = cell_at(game, state, 0, 2)
    before = state_key(game, state)
    with pytest.raises(IllegalActionError, match="at most 1 sheep"):
        game.apply(state, game.codec.move(a, 0, 2), RNG)
    with pytest.raises(IllegalActionError, match="blocked"):
        game.apply(state, game.codec.move(a, 3, 1), RNG)  # west: no pasture
    assert state_key(game, state) == before
    assert game.legal_actions(state) == [game.codec.move(a, 0, 1)]


def test_shaping_potential_counts_pastures_and_the_sheep_that_can_still_move():
    game = BattleSheepGame()
    state = board_from_text(
        game,
        """
    A10 .  .  B5 B1
    """,
    )
    # A: 1 pasture + 9 movable; B: 2 pastures + 4 movable (its single sheep cannot leave)
    assert game.shaping_potential(state).tolist() == [10.0, 6.0]
    a = cell_at(game, state, 0, 10)
    game.apply(state, game.str_to_action(state, move_str(game, a, "E", 1)), RNG)
    # A sent one sheep next to B: it is stranded (one sheep), and B's 5-stack is now closed in
    assert game.shaping_potential(state).tolist() == [2.0 + 8.0, 2.0 + 0.0]
    assert game.scores(state).tolist() == [2.0, 2.0]  # the score does not see it yet


def test_a_single_sheep_cannot_move():
    game = BattleSheepGame()
    state = board_from_text(
        game,
        """
    A1 .  .  .  B3
    """,
    )
    assert state.to_move == 1  # A's only stack has one sheep: A is skipped


def test_blocked_player_is_skipped_and_game_ends_when_nobody_can_move():
    game = BattleSheepGame(num_players=3)
    state = board_from_text(
        game,
        """
    A5 B1 C3 .  .
    """,
        to_move=0,
    )
    # A is blocked by B, B has a single sheep, so C moves; after C's only move nobody can move.
    assert state.to_move == 2
    c = cell_at(game, state, 2, 3)
    game.apply(state, game.codec.move(c, 0, 2), RNG)
    assert state.to_move == 2  # A and B still cannot move: C moves again
    far = game.grid.rays[c][0][1]
    assert state.heights[far] == 2 and state.heights[c] == 1
    game.apply(state, game.str_to_action(state, move_str(game, far, "W", 1)), RNG)
    assert state.heights[game.grid.rays[c][0][0]] == 1
    assert state.phase == OVER and game.current_player(state) == -1
    assert not game.legal_mask(state).any()
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(state, 0, RNG)


# ----- winning ------------------------------------------------------------------------------------------------------
RULEBOOK_TIE = """
A1 A1 A1 A1 A1 A1
  A1 A1 A1 A1 B1 B1
B1 B1 B1 B1 B1 B1
  B1 A1 A1 A1 A1 A1
_  _  _  _  _  .
  B1 B1 B1 B1 B1 B1
"""


def test_rulebook_tie_break_15_vs_15_pastures_herd_10_beats_herd_9():
    game = BattleSheepGame()
    state = board_from_text(game, RULEBOOK_TIE)
    assert state.phase == OVER
    assert game.rank_key(state, 0) == (15, 10)  # rows 0-1: 6 + 4 connected A
    assert game.rank_key(state, 1) == (15, 9)  # rows 1-3: 2 + 6 + 1 connected B
    assert list(game.returns(state)) == [1.0, -1.0]


def test_most_pastures_wins_before_herds_and_full_tie_is_a_draw():
    game = BattleSheepGame()
    state = board_from_text(
        game,
        """
    A1 A1 A1 B1 _ B1 _ B1
    """,
    )
    assert game.rank_key(state, 0) == (3, 3) and game.rank_key(state, 1) == (3, 1)
    assert list(game.returns(state)) == [1.0, -1.0]
    state = board_from_text(
        game,
        """
    A1 A1 _ B1 B1 _ A1 B1
    """,
    )
    assert list(game.returns(state)) == [0.0, 0.0]
    state = board_from_text(
        game,
        """
    A1 _ B1 B1 _ B1 _ A1
    """,
    )
    assert game.rank_key(state, 1) == (3, 2) and list(game.returns(state)) == [-1.0, 1.0]


def test_four_player_rewards_are_pairwise_and_sum_to_zero():
    game = BattleSheepGame(num_players=4)
    state = board_from_text(
        game,
        """
    A1 A1 A1 _ B1 B1 _ C1 C1 _ D1
    """,
    )
    r = game.returns(state)
    assert list(r) == [1.0, 0.0, 0.0, -1.0]  # B and C tie (2 pastures, herd 2)
    assert r.sum() == 0


def test_splits_end_rule_first_player_unable_to_move_loses():
    game = BattleSheepGame(end_rule="splits")
    state = board_from_text(
        game,
        """
    A2 .  B1 .  B1 .  B1
    """,
        to_move=0,
    )
    a = cell_at(game, state, 0, 2)
    game.apply(state, game.codec.move(a, 0, 1), RNG)
    # B has more pastures but cannot move: under Splits B loses at once.
    assert state.phase == OVER and state.to_move == 1
    assert list(game.returns(state)) == [1.0, -1.0]
    classic = BattleSheepGame()
    state = board_from_text(
        classic,
        """
    A2 .  B1 .  B1 .  B1
    """,
        to_move=0,
    )
    classic.apply(state, classic.codec.move(a, 0, 1), RNG)
    assert state.phase == OVER and list(classic.returns(state)) == [-1.0, 1.0]  # 2 vs 3 pastures


# ----- codec and notation -----------------------------------------------------------------------------------------
def test_codec_round_trips_every_action():
    game = BattleSheepGame(num_players=2, canvas_radius=6)
    state = game.initial_state(RNG)
    seen = set()
    for action in range(game.num_actions):
        kind, a, b, k = game.codec.decode(action)
        if kind == "tile":
            again = game.codec.tile(a, b)
        elif kind == "stack":
            again = game.codec.stack(a)
        else:
            assert kind == "move"
            again = game.codec.move(a, b, k)
        assert again == action
        text = game.action_to_str(state, action)
        assert text not in seen
        seen.add(text)
        assert game.str_to_action(state, text) == action
    assert game.num_actions == 94 * game.grid.num_cells
    assert max(game.codec.decode(a)[3] for a in range(game.num_actions)) == MAX_MOVE


@pytest.mark.parametrize("text", ["", "hello", "T 0,0/3", "99,99 E 1", "0,0 E 16", "0,0 XX 2"])
def test_bad_notation_raises(text):
    game = BattleSheepGame()
    with pytest.raises(IllegalActionError):
        game.str_to_action(game.initial_state(RNG), text)


@pytest.mark.parametrize("action", [-1, 10**9, 1.5, "3", None, True])
def test_out_of_range_or_non_integer_actions_raise(action):
    game = BattleSheepGame()
    state = game.initial_state(RNG)
    with pytest.raises(IllegalActionError):
        game.apply(state, action, RNG)


def test_render_shows_stacks_and_status():
    game = BattleSheepGame()
    state = board_from_text(game, RULEBOOK_TIE)
    text = game.render_ansi(state)
    assert "A: 15 pastures, herd 10" in text and "B1" in text
    img = game.render_rgb(state)
    assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8 and img.std() > 0


def test_action_layout_puts_every_action_on_its_own_cell():
    game = BattleSheepGame(canvas_radius=6)
    layout = game.action_layout()
    assert layout.shape == (game.num_actions, 2)
    seen = set()
    for action in range(game.num_actions):
        kind, cell, b, k = game.codec.decode(action)
        assert layout[action, 0] == game.grid.square_index[cell]
        seen.add((int(layout[action, 0]), int(layout[action, 1])))
    assert len(seen) == game.num_actions  # no two actions share a (cell, channel) slot
    assert layout[:, 1].max() == 93


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_compiled_largest_herd_is_the_readable_one(num_players):
    """``largest_herd`` (a compiled flood fill) equals ``largest_herd_python`` (HexGrid.components) for every seat
    along random games, and so the ranks and rewards it decides."""
    game = BattleSheepGame(num_players=num_players, pasture="random")
    rng = np.random.default_rng(num_players)
    checked = 0
    for _ in range(4):
        state = game.initial_state(rng)
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
            for seat in range(num_players):
                assert game.largest_herd(state, seat) == game.largest_herd_python(state, seat)
                checked += 1
    assert checked > 100
