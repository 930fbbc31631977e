"""Hypothesis property tests over random Beasty Borders games."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.beasty_borders.actions import ROW_LEN, ROW_OWNER, ROW_TYPE
from envs.beasty_borders.rules import BeastyBordersGame
from envs.common.game import TERMINAL
from envs.common.testing import check_mask_matches_apply, check_snapshot_roundtrip, random_playout

GAMES = {
    (v, p): BeastyBordersGame(variant=v, path_order=p)
    for v in ("main", "without_luck")
    for p in ("typewriter", "snake")
}
options = st.sampled_from(sorted(GAMES))


def _conserved(g: BeastyBordersGame, s) -> None:
    """Every figure is either held or on the landscape; placed counts agree."""
    for seat in range(2):
        on = 0
        for kind in range(g.num_types):
            n = int(np.count_nonzero(s.board == 3 + 3 * seat + kind))
            assert n + s.remaining[seat][kind] == g.counts[kind]
            on += n
        assert s.placed[seat] == on
    if s.row is not None:
        for seat in range(2):
            for kind in range(g.num_types):
                in_row = sum(int(s.row[i]) for i in range(ROW_LEN) if (ROW_OWNER[i], ROW_TYPE[i]) == (seat, kind))
                assert in_row == s.remaining[seat][kind]


@settings(max_examples=200, deadline=None)
@given(opt=options, seed=st.integers(0, 2**32 - 1))
def test_random_game_invariants(opt, seed):
    g = GAMES[opt]
    rng = np.random.default_rng(seed)
    s = g.initial_state(rng)
    green = len(s.empty)
    if g.luck:
        assert green == 42
    else:
        assert 27 <= green <= 30
    fills = []

    def visit(state):
        _conserved(g, state)
        fills.append(int(np.count_nonzero(state.board >= 2)))
        if g.current_player(state) != TERMINAL:
            assert state.board[state.pos] == 0  # the steps-marker always stands on an empty green space
            assert 1 <= state.roll <= 8

    final, plies = random_playout(g, rng, state=s, on_state=visit)
    assert g.current_player(final) == TERMINAL
    assert fills[-1] == green  # exactly `green` placements of animals or markers (42 in the main game)
    assert all(b - a in (0, 1) for a, b in zip(fills, fills[1:]))
    assert green <= plies <= 2 * green <= g.max_game_length
    ret = g.returns(final)
    assert ret.sum() == 0 and set(ret.tolist()) <= {-1.0, 0.0, 1.0}
    keys = g.rank_keys(final)
    if keys[0] != keys[1]:
        assert ret[0] == (1.0 if keys[0] > keys[1] else -1.0)
    else:
        assert ret.tolist() == [0.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(opt=options, seed=st.integers(0, 2**32 - 1))
def test_masks_match_apply_and_snapshots_round_trip(opt, seed):
    g = GAMES[opt]
    rng = np.random.default_rng(seed)
    check_rng = np.random.default_rng(seed + 1)

    def visit(state):
        check_mask_matches_apply(g, state, check_rng, max_legal=8, max_illegal=8)
        check_snapshot_roundtrip(g, state)
        clone = g.clone(state)
        if g.current_player(state) != TERMINAL:  # clones are independent
            g.apply(clone, g.legal_actions(clone)[-1], np.random.default_rng(0))
            assert not np.array_equal(clone.board, state.board) or clone.phase != state.phase
        assert np.array_equal(g.legal_mask(state), np.isin(np.arange(g.num_actions), g.legal_actions(state)))
        for seat in range(2):
            o = g.observation(state, seat)
            assert o.shape == g.observation_shape and o.min() >= 0 and o.max() <= 1

    random_playout(g, rng, on_state=visit)


def _next_roll_targets(g: BeastyBordersGame, s) -> list[int]:
    """Recounted from the rules: the cells rolls of 1..8 reach on the next turn, i.e. after the marker's space is
    filled (by an animal or by a marker: the space counts the same way), or [] when that ends the game."""
    filled = s.clone()
    filled.board[s.pos] = 2
    filled.empty = sorted(g.rank[c] for c in range(g.cells) if filled.board[c] == 0)
    if not filled.empty:
        return []
    return [g.target_cell(filled, roll) for roll in range(1, 9)]


@settings(max_examples=120, deadline=None)
@given(opt=options, seed=st.integers(0, 2**32 - 1), left=st.integers(0, 12) | st.integers(0, 42))
def test_spaces_block_matches_real_placements(opt, seed, left):
    """The observation's ``spaces`` block equals a direct recount from the rules: the marker's space and the
    spaces the next turn's rolls reach (the marker's space filled first), each with the victory points a real
    placement adds and its room. Games are stopped with ``left`` empty spaces, so the end (where the count runs
    round the cycle) is well covered."""
    g = GAMES[opt]
    rng = np.random.default_rng(seed)
    s = g.initial_state(rng)
    while len(s.empty) > left:
        if seed % 3:  # observing keeps the caches (group books, space entries) alive through the moves
            g.observation(s, int(seed) % 2)
        legal = g.legal_actions(s)
        g.apply(s, legal[int(rng.integers(len(legal)))], rng)
    lay, types = g.layout, g.num_types
    for seat in range(2):
        o = g.observation(s, seat)
        block = o[lay.spaces :].reshape(9, lay.space_width)
        if g.current_player(s) == TERMINAL:
            assert not block.any()
            continue
        cells = [s.pos] + _next_roll_targets(g, s)
        assert s.pos not in cells[1:]
        assert not block[len(cells) :].any()
        before = g.scores(s)
        for i, cell in enumerate(cells):
            for j in range(2 * types):
                owner = seat if j < types else 1 - seat
                placed = s.clone()
                placed.board[cell] = 3 + 3 * owner + j % types
                placed.group_cache = None
                gain = int(g.scores(placed)[owner] - before[owner])
                assert block[i, j] == np.float32(min(1.0, gain / 10))
            room = sum(1 for nb in g.neighbours[cell] if s.board[nb] == 0)
            assert block[i, -1] == np.float32(room / 4)


@settings(max_examples=40, deadline=None)
@given(opt=options, seed=st.integers(0, 2**32 - 1))
def test_groups_kept_by_placements_match_a_fresh_count(opt, seed):
    """The group books that placements keep up to date (for observations and scores) equal a recount."""
    from envs.beasty_borders.kernels import GROUP_VP, group_labels, landscape_groups

    g = GAMES[opt]
    rng = np.random.default_rng(seed)
    s = g.initial_state(rng)
    branch = None
    while g.current_player(s) != TERMINAL:
        landscape_groups(g.neighbours, s)  # keep the books alive, as an observing env does
        label, sizes, owners = s.group_cache
        fresh_label, fresh_sizes, fresh_owners = group_labels(s.board.tolist(), g.neighbours)
        for c in range(g.cells):
            kept = (sizes[label[c]], owners[label[c]]) if label[c] >= 0 else None
            fresh = (fresh_sizes[fresh_label[c]], fresh_owners[fresh_label[c]]) if fresh_label[c] >= 0 else None
            assert kept == fresh
        recount = [0, 0]
        for size, owner in zip(fresh_sizes, fresh_owners):
            recount[owner] += GROUP_VP[size]
        assert g.scores(s).tolist() == recount  # cached victory points follow the groups
        if branch is None and len(s.empty) < 30:
            branch = s.clone()  # a clone shares the books; moves in the original must not leak into it
            branch_scores = g.scores(branch).tolist()
        legal = g.legal_actions(s)
        g.apply(s, legal[int(rng.integers(len(legal)))], rng)
    if branch is not None:
        branch.group_cache = None
        assert g.scores(branch).tolist() == branch_scores
