"""Battle Sheep's canvas: the frame that follows the pasture, the smallest canvases, and the edge measurement
(RULES.md, "The frame" and "Canvas size")."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import battle_sheep_v0
from envs.battle_sheep.rules import (
    BUILD,
    EMPTY,
    MAX_CANVAS_RADIUS,
    MIN_CANVAS_RADIUS,
    NO_PASTURE,
    BattleSheepGame,
)
from envs.common.game import ConfigError, SnapshotError
from envs.common.hexgrid import enclosing_hexagon, hex_distance
from envs.common.testing import random_playout
from lab.canvas_stats import edge_losses
from lab.stuck_search import AnyCanvasGame


# ----- the smallest enclosing hexagon ---------------------------------------------------------------------------
def _brute_force_radius(cells):
    """The least max-distance over every centre near the cells."""
    qs = [q for q, _ in cells]
    rs = [r for _, r in cells]
    return min(
        max(hex_distance((q, r), c) for c in cells)
        for q in range(min(qs) - 2, max(qs) + 3)
        for r in range(min(rs) - 2, max(rs) + 3)
    )


@settings(max_examples=200, deadline=None)
@given(
    cells=st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6)), min_size=1, max_size=12),
    shift=st.tuples(st.integers(-9, 9), st.integers(-9, 9)),
)
def test_enclosing_hexagon_is_the_smallest_and_moves_with_the_cells(cells, shift):
    centre, radius = enclosing_hexagon(cells)
    assert radius == _brute_force_radius(cells)
    assert max(hex_distance(c, centre) for c in cells) == radius
    moved_centre, moved_radius = enclosing_hexagon([(q + shift[0], r + shift[1]) for q, r in cells])
    assert moved_radius == radius and moved_centre == (centre[0] + shift[0], centre[1] + shift[1])


def test_enclosing_hexagon_tie_break_on_a_tile():
    # the first tile T 0,0/0: centres (0,0) and (1,0) both reach radius 1 and are equally central; smallest r,
    # then smallest q wins
    assert enclosing_hexagon([(0, 0), (1, 0), (0, 1), (1, -1)]) == ((0, 0), 1)
    assert enclosing_hexagon([(5, 5)]) == ((5, 5), 0)
    assert enclosing_hexagon([(0, 0), (2, 0)]) == ((1, 0), 1)


# ----- the frame ------------------------------------------------------------------------------------------------
def _shape(game, cells):
    """Pasture cells up to translation."""
    pts = [game.grid.coords[c] for c in cells]
    q0, r0 = min(q for q, _ in pts), min(r for _, r in pts)
    return frozenset((q - q0, r - r0) for q, r in pts)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_placement_recentres_the_pasture_and_keeps_its_shape(num_players):
    game = BattleSheepGame(num_players=num_players)
    rng = np.random.default_rng(num_players)
    for _ in range(5):
        state = game.initial_state(rng)
        while state.phase == BUILD:
            action = int(rng.choice(np.flatnonzero(game.legal_mask(state))))
            expected = _shape(game, state.pasture + list(game.tile_cells[action]))
            game.apply(state, action, rng)
            centre, radius = enclosing_hexagon([game.grid.coords[c] for c in state.pasture])
            assert centre == (0, 0) and radius <= game.canvas_radius
            assert _shape(game, state.pasture) == expected  # a translation: adjacency and holes kept
            assert sorted(state.pasture) == [i for i, c in enumerate(state.cells) if c != NO_PASTURE]
        # nothing moves after the build
        frozen = list(state.cells)
        random_playout(game, rng, state=state)
        assert [c != NO_PASTURE for c in state.cells] == [c != NO_PASTURE for c in frozen]


@pytest.mark.parametrize("num_players", [2, 4])
def test_the_compiled_tile_placement_is_the_readable_one(num_players):
    """``BattleSheepGame.lay_tile`` (the kernel ``apply`` lays tiles with) leaves the cells, the pasture in its
    order, the extent and the pasture size exactly as ``PastureBuild.place_tile`` does, at every placement of
    random builds, from states that know their extent and from states that do not (read from text or JSON)."""
    game = BattleSheepGame(num_players=num_players)
    rng = np.random.default_rng(10 + num_players)
    placements = shifted = 0
    for _ in range(40):
        state = game.initial_state(rng)
        while state.phase == BUILD and state.num_pasture < 4 * game.total_tiles - 4:
            action = int(rng.choice(np.flatnonzero(game.legal_mask(state))))
            for known_extent in (True, False):
                compiled, readable = state.clone(), state.clone()
                if not known_extent:
                    compiled.extent = readable.extent = None
                game.lay_tile(compiled, action)
                game.build.place_tile(readable, action)
                assert list(compiled.cells) == list(readable.cells)
                assert compiled.pasture == readable.pasture and compiled.num_pasture == readable.num_pasture
                assert compiled.extent == readable.extent
            placements += 1
            shifted += compiled.pasture[:-4] != state.pasture
            game.apply(state, action, rng)
    assert placements > 200 and shifted > placements // 4  # the frame moved in many of them


def test_first_tile_is_centred_and_the_second_is_relative_to_it():
    game = BattleSheepGame()
    state = game.initial_state(np.random.default_rng(0))
    game.apply(state, game.str_to_action(state, "T 0,0/0"))
    assert sorted(game.grid.coords[c] for c in state.pasture) == sorted([(0, 0), (1, 0), (0, 1), (1, -1)])
    # a tile east of it: the pasture is 3 wide in q now and moves half a hexagon west
    game.apply(state, game.str_to_action(state, "T 2,0/0"))
    coords = sorted(game.grid.coords[c] for c in state.pasture)
    assert enclosing_hexagon(coords) == ((0, 0), 2)
    assert (-1, 0) in coords and (2, -1) in coords


def test_snapshot_with_an_uncentred_build_pasture_is_refused():
    game = BattleSheepGame()
    state = game.initial_state(np.random.default_rng(0))
    game.apply(state, game.str_to_action(state, "T 0,0/1"))
    data = game.state_to_json(state)
    assert game.state_to_json(game.state_from_json(data)) == data
    far = game.grid.index[(3, 3)]
    data["cells"] = [NO_PASTURE] * game.grid.num_cells
    for c in game.tile_cells[3 * far + 1]:
        data["cells"][c] = EMPTY
    with pytest.raises(SnapshotError, match="centred"):
        game.state_from_json(data)


def test_the_edge_binds_only_where_the_pasture_comes_within_three_of_it():
    """The lemma of RULES.md: every tile touching the pasture lies within hex distance 3 of a pasture cell.
    canvas_stats checks each canvas placement against the edgeless ones; on the largest canvas none is lost."""
    report = edge_losses(4, games=20, seed=1, canvas_radius=MAX_CANVAS_RADIUS)
    assert report.steps == 20 * 15 and report.builds_with_loss == 0
    assert max(report.largest_radius) + 3 <= MAX_CANVAS_RADIUS
    small = edge_losses(4, games=20, seed=1, canvas_radius=MIN_CANVAS_RADIUS[4])
    assert small.builds_with_loss > 0  # the measurement does see the edge where it binds


# ----- canvas size ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_canvas_below_the_smallest_is_refused_naming_it(num_players):
    smallest = MIN_CANVAS_RADIUS[num_players]
    for radius in range(1, smallest):
        with pytest.raises(ConfigError, match=f"too small for {num_players} players.*from {smallest} to 16"):
            battle_sheep_v0.raw_env(num_players=num_players, canvas_radius=radius)
    battle_sheep_v0.raw_env(num_players=num_players, canvas_radius=smallest).reset(seed=0)


def test_issue_sizes_that_got_stuck_are_refused():
    # 4 players on radius 5 got stuck in the old frame (a fourth player with no legal tile); 3 players on radius
    # 4 with a random pasture raised numpy's "high <= 0" at reset
    with pytest.raises(ConfigError, match="from 7 to 16"):
        battle_sheep_v0.raw_env(num_players=4, canvas_radius=5)
    with pytest.raises(ConfigError, match="from 7 to 16"):
        battle_sheep_v0.raw_env(num_players=3, canvas_radius=4, pasture="random")
    with pytest.raises(ConfigError, match="from 7 to 16"):
        battle_sheep_v0.env(num_players=3, canvas_radius=4, pasture="random")


STUCK_BUILDS = {
    # (radius, tiles) found by `python -m lab.stuck_search` in the re-centred frame
    4: "T 0,0/2; T 2,1/1; T 3,0/0; T 2,-2/2; T -3,2/0; T 0,3/2; T 0,-3/0",
    5: ("T 0,0/0; T 0,-2/1; T 0,-4/0; T 0,5/2; T -3,4/2; T -4,2/1; T -3,0/2; T 2,-3/2; T 1,0/0; T 3,0/0; T 3,-3/0"),
}


@pytest.mark.parametrize("radius", sorted(STUCK_BUILDS))
def test_below_the_smallest_canvas_a_build_can_get_stuck(radius):
    """Why the small canvases are refused: on them, legal placements lead to a player with no legal tile."""
    game = AnyCanvasGame(num_players=4, canvas_radius=radius)
    state = game.initial_state(np.random.default_rng(0))
    moves = STUCK_BUILDS[radius].split("; ")
    for move in moves:
        game.apply(state, game.str_to_action(state, move))
    assert state.phase == BUILD and not game.legal_mask(state).any()
    tiles = len(moves)
    stuck_counts = [n for n in (2, 3, 4) if tiles <= 4 * n - 1]
    assert stuck_counts and all(radius < MIN_CANVAS_RADIUS[n] for n in stuck_counts)


ACCEPTED = [
    (n, r, p)
    for n in (2, 3, 4)
    for r in range(MIN_CANVAS_RADIUS[n], MAX_CANVAS_RADIUS + 1)
    for p in ("build", "random")
]


@settings(max_examples=30, deadline=None)
@given(config=st.sampled_from(ACCEPTED), seed=st.integers(0, 2**32 - 1))
def test_a_live_player_always_has_a_legal_action_on_every_accepted_canvas(config, seed):
    num_players, radius, pasture = config
    game = BattleSheepGame(num_players=num_players, canvas_radius=radius, pasture=pasture)
    state, _ = random_playout(game, np.random.default_rng(seed))  # asserts a non-empty mask at every live step
    assert game.current_player(state) == -1


def test_every_accepted_size_is_covered():
    assert {(n, r) for n, r, _ in ACCEPTED} == {
        (n, r) for n, r in itertools.product((2, 3, 4), range(1, 17)) if r >= MIN_CANVAS_RADIUS[n]
    }
