"""Boaring baselines: legal, reproducible, sensible on hand-made bids, and blind to other players' hidden cards."""

import numpy as np
import pytest

from envs.boaring import actions as A
from envs.boaring.baselines import GreedyPolicy, search_policy
from envs.boaring.rules import BoaringGame
from envs.common.policies import decision_from_state
from training.arena.tournament import play_game


def test_baselines_play_legal_reproducible_games():
    opts = {"num_players": 4}
    seats = ["greedy", "search:8", "random", "greedy"]
    a = play_game("boaring", opts, seats, seed=3)  # play_game checks every action against the mask
    b = play_game("boaring", opts, seats, seed=3)
    assert a.actions == b.actions and len(a.actions) >= 38 * 4
    c = play_game("boaring", {"num_players": 3}, ["search:8", "greedy", "greedy"], seed=4)
    assert not c.truncated


def test_greedy_wins_a_living_boar_with_its_highest_card():
    game = BoaringGame(num_players=4)
    # Requirement 1 x 4 = 4: the boar surely lives; a 10 is the only card that surely is the highest.
    state = game.make_state([[1, 2, 10], [5, 6, 7], [3, 4, 8], [2, 3, 9]], "boar", 1, active=0)
    assert GreedyPolicy(game, seed=0).act(decision_from_state(game, state)) == A.play_action(10)


def test_greedy_saves_its_high_card_when_the_animal_dies():
    game = BoaringGame(num_players=4)
    # Requirement 10 x 4 = 40 needs four 10s: the boar surely dies and the highest card wins nothing, so the
    # 10 is kept for a later animal.
    state = game.make_state([[1, 5, 10], [5, 6, 7], [3, 4, 8], [2, 3, 9]], "boar", 10, active=0)
    assert GreedyPolicy(game, seed=0).act(decision_from_state(game, state)) != A.play_action(10)


def test_greedy_lion_eats_from_the_leader():
    game = BoaringGame(num_players=3)
    state = game.make_state([[10, 2], [1, 3], [1, 4]], "lion", 1, active=0, savanna=[[0, 0, 0], [1, 0, 0], [3, 0, 0]])
    rng = np.random.default_rng(0)
    for action in (A.play_action(10), A.play_action(1), A.play_action(1)):
        game.apply(state, action, rng)
    decision = decision_from_state(game, state)
    assert decision.seat == 0
    assert GreedyPolicy(game, seed=0).act(decision) == A.lion_action(2, 0)  # p2 leads: eat one of its boars


def _pair_differing_in_hidden_cards(game, seed):
    """Two full states of one random game, equal in everything seat 'me' may know, different elsewhere."""
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    n = game.num_players
    for _ in range(int(rng.integers(0, 3 * n))):  # play a few rounds
        game.apply(state, int(rng.choice(game.legal_actions(state))), rng)
    while game.current_player(state) == -1 or state.phase != 0 or state.ncommitted == 0:
        if game.current_player(state) == -1:
            return None
        game.apply(state, int(rng.choice(game.legal_actions(state))), rng)
    me = game.current_player(state)
    other = game.determinize(game.information_state(state, me), me, np.random.default_rng(seed + 1000))
    return state, other, me


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", ["greedy", "search"])
def test_decisions_ignore_other_players_hidden_cards(name, seed):
    game = BoaringGame(num_players=4)
    pair = _pair_differing_in_hidden_cards(game, seed)
    assert pair is not None
    s1, s2, me = pair
    hidden_differs = any(
        s1.hands[o] != s2.hands[o] or s1.pending[o] != s2.pending[o] for o in range(game.num_players) if o != me
    )
    assert hidden_differs  # the other hands or the committed cards really are different
    assert s1.hands[me] == s2.hands[me]
    make = GreedyPolicy if name == "greedy" else (lambda g, seed: search_policy(g, seed=seed, budget=30))
    d1, d2 = decision_from_state(game, s1, me), decision_from_state(game, s2, me)
    assert make(game, seed=11).act(d1) == make(game, seed=11).act(d2)


def test_hand_made_pending_card_is_not_read():
    game = BoaringGame(num_players=4)
    hands = [[1, 9], [2, 10], [3, 8], [4, 7]]
    rng = np.random.default_rng(0)
    states = []
    for first in (A.play_action(1), A.play_action(9)):  # seat 0 commits a 1 (keeps the 9) or a 9 (keeps the 1)
        s = game.make_state(hands, "boar", 4, active=0)
        game.apply(s, first, rng)
        states.append(s)
    assert states[0].pending[0] != states[1].pending[0]
    for make in (lambda: GreedyPolicy(game, seed=5), lambda: search_policy(game, seed=5, budget=40)):
        acts = [make().act(decision_from_state(game, s, 1)) for s in states]
        assert acts[0] == acts[1]
