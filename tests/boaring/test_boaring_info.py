"""Information tests: no observation (and no information state) depends on what a seat cannot know."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.boaring import actions as A
from envs.boaring.observation import observation_layout
from envs.boaring.rules import BID, EAT, UNKNOWN, BoaringGame, observation_size
from envs.common.game import TERMINAL

RNG = np.random.default_rng(0)


def info_key(game, state, seat):
    return json.dumps(game.state_to_json(game.information_state(state, seat)), sort_keys=True)


def decision_states(game, seed, every=1):
    """States met in one random game (every ``every``-th), including mid-bid positions."""
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    out = []
    k = 0
    while game.current_player(state) != TERMINAL:
        if k % every == 0:
            out.append(game.clone(state))
        legal = game.legal_actions(state)
        game.apply(state, legal[rng.integers(len(legal))], rng)
        k += 1
    out.append(state)
    return out


@pytest.mark.parametrize("n", [2, 4, 6, 10])
def test_observation_ignores_hidden_cards(n):
    """Redeal every card a seat cannot see (other hands, hidden pending cards, pile order, deck order): that
    seat's observation stays byte-identical and so does its information state, for every seat, including the
    seats that commit after others."""
    game = BoaringGame(num_players=n)
    rng = np.random.default_rng(n)
    changed_hands = changed_pending = 0
    for state in decision_states(game, seed=n, every=3 if n > 4 else 1):
        for seat in range(n):
            obs = game.observation(state, seat).tobytes()
            key = info_key(game, state, seat)
            other = game.determinize(game.information_state(state, seat), seat, rng)
            game.state_from_json(json.loads(json.dumps(game.state_to_json(other))))  # the books balance
            assert game.observation(other, seat).tobytes() == obs
            assert info_key(game, other, seat) == key
            assert other.hands[seat] == state.hands[seat] and other.pending[seat] == state.pending[seat]
            changed_hands += any(other.hands[s] != state.hands[s] for s in range(n) if s != seat)
            changed_pending += any(other.pending[s] != state.pending[s] for s in range(n) if s != seat)
    assert changed_hands > 0 and changed_pending > 0  # the test did swap hidden cards


def test_later_committers_see_that_not_what():
    """Seat 3 commits last: seats 0-2's cards are in, but swapping them for other cards changes nothing it sees."""
    g = BoaringGame(num_players=4)
    s = g.make_state([[2, 9], [3, 8], [4, 7], [5, 6]], "boar", 5, active=0)
    for _seat, v in ((0, 2), (1, 3), (2, 4)):
        g.apply(s, A.play_action(v), RNG)
    t = g.make_state([[2, 9], [3, 8], [4, 7], [5, 6]], "boar", 5, active=0)
    for _seat, v in ((0, 9), (1, 8), (2, 7)):
        g.apply(t, A.play_action(v), RNG)
    assert g.current_player(s) == g.current_player(t) == 3
    for seat in range(4):
        same = g.observation(s, seat).tobytes() == g.observation(t, seat).tobytes()
        assert same == (seat == 3)  # seats 0-2 see their own different card and hand
    obs = g.observation(s, 3)
    o = observation_layout(g.num_players).offsets
    assert obs[o["committed"] : o["committed"] + 4].tolist() == [0, 1, 1, 1]  # relative: me, p0, p1, p2
    assert obs[o["to_move"] : o["to_move"] + 4].tolist() == [1, 0, 0, 0]
    assert not obs[o["last_played"] : o["last_played"] + 40].any()  # nothing revealed yet
    # the last card: all revealed together, visible to everyone
    g.apply(s, A.play_action(5), RNG)
    for seat in range(4):
        obs = g.observation(s, seat)
        rows = obs[o["last_played"] : o["last_played"] + 40].reshape(4, 10)
        played = [int(np.argmax(rows[k])) + 1 for k in range(4)]
        assert played == [[2, 3, 4, 5][(seat + k) % 4] for k in range(4)]


def test_own_hand_and_pending_are_seen():
    g = BoaringGame(num_players=2)
    s = g.make_state([[2, 2, 9], [3, 8]], "boar", 5, active=0)
    o = observation_layout(g.num_players).offsets
    obs = g.observation(s, 0)
    assert np.allclose(obs[o["hand"] : o["hand"] + 10] * 7, [0, 2, 0, 0, 0, 0, 0, 0, 1, 0])
    g.apply(s, A.play_action(9), RNG)
    obs = g.observation(s, 0)
    assert obs[o["my_pending"] + 8] == 1 and np.allclose(
        obs[o["hand"] : o["hand"] + 10] * 7, [0, 2, 0, 0, 0, 0, 0, 0, 0, 0]
    )
    assert not g.observation(s, 1)[o["my_pending"] : o["my_pending"] + 10].any()


def test_information_state_placeholders():
    g = BoaringGame(num_players=3)
    s = g.initial_state(np.random.default_rng(3))
    g.apply(s, g.legal_actions(s)[0], RNG)  # p0 commits
    info = g.information_state(s, 1)
    assert info.hands[1] == s.hands[1]
    assert info.hands[0] == [UNKNOWN] * 10 and info.hands[2] == [UNKNOWN] * 10
    assert info.hand_size == s.hand_size
    assert info.pending == [UNKNOWN, 0, 0]
    assert info.food_pile == [UNKNOWN] * len(s.food_pile)
    assert info.animal_deck == [UNKNOWN] * len(s.animal_deck)
    assert info.animals_left == s.animals_left and info.discard == s.discard
    own = g.information_state(s, 0)
    assert own.pending == [s.pending[0], 0, 0]  # my own card is known to me
    # the original is untouched
    assert UNKNOWN not in s.hands[0] and s.pending[0] > 0
    # unknown food = 70 - my hand - discard - table
    assert sum(g.unknown_food(info, 1)) == 70 - 10 - 1 - sum(s.discard)


def test_information_state_in_eat_phase_shows_the_reveal():
    g = BoaringGame(num_players=2)
    s = g.make_state([[9, 1], [1, 1]], "hyena", 1, active=0, graveyard=[[1, 0, 0], [0, 0, 0]])
    g.apply(s, A.play_action(9), RNG)
    g.apply(s, A.play_action(1), RNG)
    assert s.phase == EAT
    info = g.information_state(s, 1)
    assert info.pending == [9, 1]  # revealed cards are public
    assert info.hands[0] == [UNKNOWN] * 10 and info.phase == EAT and info.eater == 0


def test_graveyards_are_public_by_type():
    """Reading: every player saw the animal die, so graveyards are public knowledge by type."""
    g = BoaringGame(num_players=2)
    s = g.make_state([[1], [2]], "lion", 10, active=0)
    g.apply(s, A.play_action(1), RNG)
    g.apply(s, A.play_action(2), RNG)
    o = observation_layout(g.num_players).offsets
    for seat in range(2):
        row = (0 - seat) % 2
        base = o["players"] + row * 8
        assert g.observation(s, seat)[base + 5] == pytest.approx(1 / 4)  # a lion in p0's graveyard
    assert g.information_state(s, 1).graveyard[0] == [0, 0, 1]


def test_determinize_fills_every_placeholder():
    g = BoaringGame(num_players=4)
    s = g.initial_state(np.random.default_rng(9))
    for _ in range(2):
        g.apply(s, g.legal_actions(s)[-1], RNG)
    info = g.information_state(s, 2)
    det = g.determinize(info, 2, np.random.default_rng(1))
    assert UNKNOWN not in det.pending and UNKNOWN not in det.food_pile and UNKNOWN not in det.animal_deck
    assert all(UNKNOWN not in h for h in det.hands)
    assert det.hand_size == s.hand_size
    # a determinization is playable
    g.apply(det, g.legal_actions(det)[0], RNG)
    assert det.phase in (BID, EAT)


@pytest.mark.parametrize("n", [2, 5])
def test_a_seats_screen_ignores_hidden_cards(n):
    """A human at a seat sees ``render_for(state, seat)``: redealing every card that seat cannot see (other
    hands, other face-down bids, pile and deck order) leaves its text identical for every seat and its rgb
    picture identical (checked for one seat per position: drawing is slow), while the spectator's picture
    (labelled as such) does change."""
    game = BoaringGame(num_players=n)
    rng = np.random.default_rng(100 + n)
    spectator_changed = 0
    for k, state in enumerate(decision_states(game, seed=n, every=4)):
        for seat in range(n):
            other = game.determinize(game.information_state(state, seat), seat, rng)
            text = game.render_for(state, seat)
            assert text.startswith(f"player_{seat}'s view")
            assert game.render_for(other, seat) == text
            if seat == k % n:
                assert np.array_equal(
                    game.render_for(other, seat, "rgb_array"), game.render_for(state, seat, "rgb_array")
                )
            spectator_changed += game.render_ansi(other) != game.render_ansi(state)
    assert spectator_changed > 0  # hidden cards were really redealt, and the spectator sees them
    assert game.render_ansi(state).startswith("spectator view: every hand")


def one_card_laid(game: BoaringGame, laid: int):
    """A two-player game where player_0 (active, it bids first) held a 3 and a 9 and laid ``laid`` face down;
    player_1 holds a 1 and a 2. Two of these, laid 3 and laid 9, differ only in what player_1 may not know."""
    state = game.initial_state(np.random.default_rng(5))
    state.hands[0] = [0] * 10
    state.hands[0][3 - 1] += 1
    state.hands[0][9 - 1] += 1
    state.hand_size[0] = 2
    state.hands[1] = [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    state.hand_size[1] = 2
    game.apply(state, A.play_action(laid), np.random.default_rng(0))
    return state


def test_a_seats_screen_for_one_other_hidden_card():
    """Two games that differ only in the card player_0 laid face down (3 or 9, the other one in its hand):
    player_1's screen is the same, the spectator's is not."""
    game = BoaringGame(num_players=2)
    screens, spectator = [], []
    for laid in (3, 9):
        state = one_card_laid(game, laid)
        screens.append((game.render_for(state, 1), game.render_for(state, 1, "rgb_array").tobytes()))
        spectator.append(game.render_ansi(state))
        assert "[??]" in screens[-1][0] and "hand(1): ?" in screens[-1][0]
    assert screens[0] == screens[1]
    assert spectator[0] != spectator[1]


def test_render_for_checks_its_arguments_and_env_renders_per_agent():
    from envs import beasty_borders_v0, boaring_v0

    game = BoaringGame(num_players=3)
    state = game.initial_state(RNG)
    for bad in (3, -1, "player_0", True):
        with pytest.raises(ValueError, match="observer"):
            game.render_for(state, bad)
    with pytest.raises(ValueError, match="mode"):
        game.render_for(state, 0, "human")
    env = boaring_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=1)
    assert env.render_for("player_2") == game.render_for(env.unwrapped.game_state, 2)
    assert env.render().startswith("spectator view")
    with pytest.raises(ValueError, match="unknown agent"):
        env.render_for("player_7")
    par = boaring_v0.parallel_env(num_players=3, render_mode="rgb_array")
    par.reset(seed=1)
    assert np.array_equal(par.render_for("player_1"), game.render_for(par.game_state, 1, "rgb_array"))
    perfect = beasty_borders_v0.env(render_mode="ansi")  # nothing hidden: every seat sees the whole position
    perfect.reset(seed=1)
    assert perfect.render_for("player_1") == perfect.render_for("player_0") == perfect.render()


@pytest.mark.parametrize("n", [2, 3, 6])
def test_active_at_the_end_is_the_last_rounds_active_player(n):
    """Once the last animal is resolved the game ends and no next turn starts: the observation's ``active``
    block (and ``state.active``) still names the active player of the last round, for every observer."""
    game = BoaringGame(num_players=n)
    rng = np.random.default_rng(n)
    state = game.initial_state(rng)
    last_active = None
    while game.current_player(state) != TERMINAL:
        last_active = state.active
        legal = game.legal_actions(state)
        game.apply(state, legal[rng.integers(len(legal))], rng)
    assert state.active == last_active == (state.rounds - 1) % n
    lay = observation_layout(game.num_players)
    for seat in range(n):
        obs = game.observation(state, seat)
        active = obs[lay.active : lay.active + n]
        assert active.tolist() == [float(k == (last_active - seat) % n) for k in range(n)]
        assert not obs[lay.to_move : lay.to_move + n].any()


def test_the_rules_observation_size_is_the_layouts():
    """The rules declare the observation's size without the view (``rules.observation_size``); the layout in
    ``observation.py`` lays out exactly that many entries."""
    for n in range(2, 11):
        game = BoaringGame(num_players=n)
        assert game.observation_shape == (observation_layout(n).size,) == (observation_size(n),)
        assert game.observation(game.initial_state(np.random.default_rng(n)), 0).shape == game.observation_shape
