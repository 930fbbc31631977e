"""Hypothesis property tests over random Boaring games."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.boaring.rules import ANIMAL_COUNTS, EAT, BoaringGame
from envs.common.game import SnapshotError
from envs.common.testing import check_mask_matches_apply, check_snapshot_roundtrip, random_playout, state_key

GAMES = {n: BoaringGame(num_players=n) for n in range(2, 11)}
players = st.integers(2, 10)
seeds = st.integers(0, 2**32 - 1)


def food_books(state):
    """Food per value across hands, the pile, the discard and the table (played cards + turned card)."""
    counts = [0] * 10
    for h in state.hands:
        for i, c in enumerate(h):
            counts[i] += c
    table = [v for v in state.pending if v] + ([state.requirement] if state.requirement else [])
    for v in state.food_pile + table:
        counts[v - 1] += 1
    return [c + d for c, d in zip(counts, state.discard)]


def animal_books(state):
    """Animals per type across the deck, the table, savannas, graveyards and eaten."""
    counts = [0, 0, 0]
    for t in state.animal_deck:
        counts[t] += 1
    if state.animal >= 0:
        counts[state.animal] += 1
    for row in state.savanna + state.graveyard:
        for t in range(3):
            counts[t] += row[t]
    return [c + e for c, e in zip(counts, state.eaten)]


@settings(max_examples=100, deadline=None)
@given(players, seeds)
def test_cards_and_animals_are_conserved(n, seed):
    game = GAMES[n]

    def check(state):
        assert food_books(state) == [7] * 10
        assert animal_books(state) == list(ANIMAL_COUNTS)
        assert [sum(h) for h in state.hands] == state.hand_size
        assert len(set(state.hand_size)) <= 2  # everyone plays one card a round
        assert state.animals_left == [state.animal_deck.count(t) for t in range(3)]

    state, plies = random_playout(game, np.random.default_rng(seed), on_state=check)
    assert game.is_terminal(state) and state.rounds == 38
    assert 38 * n <= plies <= game.max_game_length
    assert abs(game.returns(state).sum()) < 1e-9


@settings(max_examples=80, deadline=None)
@given(players, seeds, st.integers(0, 400))
def test_masks_match_apply_and_snapshots_round_trip(n, seed, plies):
    game = GAMES[n]
    rng = np.random.default_rng(seed)
    state, _ = random_playout(game, rng, max_plies=plies)
    check_mask_matches_apply(game, state, rng)
    check_snapshot_roundtrip(game, state)
    assert sorted(game.legal_actions(state)) == np.flatnonzero(game.legal_mask(state)).tolist()


@settings(max_examples=20, deadline=None)
@given(players, seeds)
def test_eat_phases_masks(n, seed):
    """Every eat decision met in a game: the mask matches apply and offers 'no eat' plus real targets only."""
    game = GAMES[n]
    rng = np.random.default_rng(seed)

    def check(state):
        if state.phase == EAT:
            check_mask_matches_apply(game, state, rng)
            assert 10 in game.legal_actions(state) and len(game.legal_actions(state)) >= 2

    random_playout(game, rng, on_state=check)


@settings(max_examples=20, deadline=None)
@given(players, seeds, st.integers(0, 300))
def test_clone_is_independent(n, seed, plies):
    game = GAMES[n]
    rng = np.random.default_rng(seed)
    state, _ = random_playout(game, rng, max_plies=plies)
    before = state_key(game, state)
    copy = game.clone(state)
    random_playout(game, rng, state=copy)
    assert state_key(game, state) == before


@settings(max_examples=60, deadline=None)
@given(players, seeds, st.sampled_from(["hands", "discard", "savanna", "animal_deck", "pending", "phase", "food_pile"]))
def test_damaged_snapshots_are_rejected(n, seed, field):
    game = GAMES[n]
    rng = np.random.default_rng(seed)
    state, _ = random_playout(game, rng, max_plies=int(rng.integers(0, 30 * n)))
    data = json.loads(json.dumps(game.state_to_json(state)))
    if field == "hands":
        data["hands"][0][0] += 1
    elif field == "discard":
        data["discard"][3] += 1
    elif field == "savanna":
        data["savanna"][n - 1][0] += 1
    elif field == "animal_deck":
        data["animal_deck"].append(2)
    elif field == "pending":
        data["pending"] = [11] * n
    elif field == "phase":
        data["phase"] = 7
    else:
        data["food_pile"] = "lots"
    try:
        game.state_from_json(data)
    except SnapshotError:
        return
    raise AssertionError(f"damaged {field} was accepted")
