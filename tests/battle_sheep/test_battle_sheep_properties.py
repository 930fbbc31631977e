"""Property tests over random Battle Sheep games (hypothesis draws the seeds and options)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.battle_sheep.observation import observation_numpy
from envs.battle_sheep.rules import (
    BUILD,
    DEFAULT_CANVAS_RADIUS,
    MIN_CANVAS_RADIUS,
    NO_PASTURE,
    OVER,
    PLACE,
    SHEEP_PER_PLAYER,
    BattleSheepGame,
)
from envs.common.hexgrid import enclosing_hexagon
from envs.common.testing import check_mask_matches_apply, check_snapshot_roundtrip, random_playout

GAMES = {
    (n, p, e, r): BattleSheepGame(num_players=n, pasture=p, end_rule=e, canvas_radius=r)
    for n in (2, 3, 4)
    for p in ("build", "random")
    for e in ("battle_sheep", "splits")
    for r in (MIN_CANVAS_RADIUS[n], DEFAULT_CANVAS_RADIUS[n])
    if e == "battle_sheep" or n == 2
}
configs = st.sampled_from(sorted(GAMES))


def check_invariants(game: BattleSheepGame, state) -> None:
    n = game.num_players
    for seat in range(n):
        heights = [state.heights[c] for c in state.stacks[seat]]
        # occupied pastures never empty, owners consistent
        assert all(h >= 1 for h in heights)
        assert all(state.cells[c] == seat for c in state.stacks[seat])
        assert len(set(state.stacks[seat])) == len(state.stacks[seat])
        if state.phase > PLACE or seat < state.stacks_placed:
            assert sum(heights) == SHEEP_PER_PLAYER  # sheep conserved
        else:
            assert not heights
    owned = sum(len(s) for s in state.stacks)
    assert owned == sum(c >= 0 for c in state.cells)
    assert all(state.heights[i] == 0 for i, c in enumerate(state.cells) if c < 0)
    assert state.num_pasture == sum(c != NO_PASTURE for c in state.cells)
    assert sorted(state.pasture) == [i for i, c in enumerate(state.cells) if c != NO_PASTURE]
    if state.pasture:  # the frame follows the pasture: its enclosing hexagon is centred (RULES.md)
        assert enclosing_hexagon([game.grid.coords[c] for c in state.pasture])[0] == (0, 0)
        assert state.extent is None or state.extent == game.extent(state.pasture)  # kept incrementally
    if state.phase == BUILD and state.num_pasture:
        # the incrementally kept tile legality equals a from-scratch computation
        fresh = state.clone()
        fresh.tile_blocked = fresh.tile_touch = None
        assert np.array_equal(game.legal_tiles(fresh), game.legal_tiles(state))
    live = state.phase != OVER
    assert bool(game.legal_mask(state).any()) == live  # mask never empty while the game is live
    # the compiled observation (observation.py), mask and outer border (kernels.py) equal their readable definitions
    pasture = [c != NO_PASTURE for c in state.cells]
    assert game.outer_border(state) == tuple(np.flatnonzero(game.grid.outer_border(pasture)).tolist())
    if state.phase != BUILD:
        assert state.border == game.outer_border(state)
    assert np.array_equal(game.legal_mask(state), game.legal_mask_python(state))
    for seat in range(n):
        assert np.array_equal(game.observation(state, seat), observation_numpy(game, state, seat))
    if live:  # the env's one-call observation and mask of the mover equal the two built apart
        obs, mask = game.observation_and_mask(state, state.to_move)
        assert np.array_equal(obs, observation_numpy(game, state, state.to_move))
        assert np.array_equal(mask, game.legal_mask_python(state))
    if state.phase == OVER:
        r = game.returns(state)
        assert abs(r.sum()) < 1e-9 and r.max() <= 1 and r.min() >= -1


@settings(max_examples=25, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_invariants_and_end(config, seed):
    game = GAMES[config]
    rng = np.random.default_rng(seed)
    state, plies = random_playout(game, rng, on_state=lambda s: check_invariants(game, s))
    assert state.phase == OVER and plies <= game.max_game_length


@settings(max_examples=20, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), stop=st.floats(0, 1))
def test_masks_match_what_apply_accepts_and_snapshots_round_trip(config, seed, stop):
    game = GAMES[config]
    rng = np.random.default_rng(seed)
    _, length = random_playout(game, np.random.default_rng(seed))
    state, _ = random_playout(game, rng, max_plies=int(stop * length))
    check_mask_matches_apply(game, state, rng)
    check_snapshot_roundtrip(game, state)
