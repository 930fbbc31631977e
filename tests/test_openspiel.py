"""The OpenSpiel games (envs/openspiel): OpenSpiel's own checks and algorithms on them, the chance nodes against
the engines, Boaring's information states, and Shimmy's PettingZoo view."""

from __future__ import annotations

import collections
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import envs  # noqa: E402
import envs.openspiel as bridge  # noqa: E402
from envs.common.game import ConfigError  # noqa: E402
from envs.common.testing import option_sets  # noqa: E402
from envs.openspiel.chance import NeedChance, ScriptedRng, UnsupportedChance  # noqa: E402

GT = pyspiel.GameType


def bridge_cases() -> list[tuple[str, dict]]:
    """Per registered game: its defaults and the first option set of the generic tests that changes them and
    that its OpenSpiel registration supports."""
    cases = []
    for game in envs.GAMES:
        spec = bridge.specs_of(game)[0]
        defaults = envs.make_game(game).options()
        others = [
            o
            for o in option_sets(game)
            if spec.unsupported(dict(o)) is None and envs.make_game(game, **o).options() != defaults
        ]
        cases += [(game, {}), *((game, o) for o in others[:1])]
    return cases


OPTION_SETS = bridge_cases()


def play_randomly(state, rng: np.random.Generator):
    """Play ``state`` to the end with uniform chance and uniform legal actions; returns it."""
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


# ----- OpenSpiel's own conformance check -------------------------------------------------------------------
@pytest.mark.parametrize("game,options", OPTION_SETS, ids=lambda x: str(x))
def test_random_sim_test(game, options):
    """OpenSpiel's random_sim_test (legal actions and masks, chance outcome sums, returns within the utility
    bounds, zero sum, observation and information-state calls, serialisation round trips) on every game and
    option set."""
    loaded = bridge.load_game(game, **options)
    pyspiel.random_sim_test(loaded, num_sims=2, serialize=True, verbose=False)


def test_boaring_turn_based_passes_random_sim_test():
    """Boaring through OpenSpiel's simultaneous -> turn-based conversion (what MCCFR runs on)."""
    game = pyspiel.convert_to_turn_based(bridge.load_game("boaring", num_players=2))
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_game_types():
    types = {game: bridge.load_game(game).get_type() for game in bridge.GAME_NAMES}
    for game in ("battle_sheep", "bestiarium"):
        assert types[game].dynamics == GT.Dynamics.SEQUENTIAL
        assert types[game].chance_mode == GT.ChanceMode.DETERMINISTIC
        assert types[game].information == GT.Information.PERFECT_INFORMATION
    assert types["beasty_borders"].chance_mode == GT.ChanceMode.EXPLICIT_STOCHASTIC
    assert types["beasty_borders"].information == GT.Information.PERFECT_INFORMATION
    assert types["boaring"].dynamics == GT.Dynamics.SIMULTANEOUS
    assert types["boaring"].chance_mode == GT.ChanceMode.EXPLICIT_STOCHASTIC
    assert types["boaring"].information == GT.Information.IMPERFECT_INFORMATION
    for game, game_type in types.items():
        assert game_type.short_name == f"barnyard_{game}" and game_type.utility == GT.Utility.ZERO_SUM
        assert game_type.short_name in pyspiel.registered_names()
    assert (types["boaring"].min_num_players, types["boaring"].max_num_players) == (2, 10)


def test_games_are_the_engines_with_their_options():
    game = bridge.load_game("boaring", num_players=3, reward="score")
    engine = bridge.engine_of(game)
    assert engine.options() == {"num_players": 3, "reward": "score"}
    assert game.num_players() == 3 and game.num_distinct_actions() == engine.num_actions
    assert game.observation_tensor_shape() == list(engine.observation_shape)
    assert bridge.load_game("barnyard_boaring").num_players() == 4  # the engine's default


def test_bad_options_are_clear_errors():
    with pytest.raises(ConfigError, match="num_players=11"):
        bridge.load_game("boaring", num_players=11)
    with pytest.raises(ConfigError, match="pasture='random'"):
        bridge.load_game("battle_sheep", pasture="random")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        bridge.load_game("chess")
    state = bridge.load_game("bestiarium", board_size=5).new_initial_state()
    with pytest.raises(Exception, match="not legal"):
        state.apply_action(int(np.flatnonzero(np.asarray(state.legal_actions_mask()) == 0)[0]))


# ----- explicit chance -----------------------------------------------------------------------------------------
def test_scripted_draws_are_exactly_uniform():
    """Every sequence of scripted outcomes gives one permutation / subset, each exactly once (so uniform
    outcomes give numpy's uniform distributions)."""
    perms = collections.Counter(
        tuple(ScriptedRng([a, b, c]).permutation(4).tolist()) for a in range(4) for b in range(3) for c in range(2)
    )
    assert len(perms) == 24 and set(perms.values()) == {1}
    subsets = collections.Counter(
        tuple(ScriptedRng([a, b]).choice(np.arange(1, 5), 2, replace=False).tolist())
        for a in range(4)
        for b in range(3)
    )
    assert len(subsets) == 12 and set(subsets.values()) == {1}
    assert [int(ScriptedRng([i]).integers(1, 9)) for i in range(8)] == list(range(1, 9))


def test_scripted_rng_asks_for_chance_and_refuses_what_it_cannot_translate():
    with pytest.raises(NeedChance) as need:
        ScriptedRng([]).integers(1, 9)
    assert need.value.num_outcomes == 8 and need.value.describe(2) == "integers(1, 9) -> 3"
    with pytest.raises(UnsupportedChance, match="deterministic"):
        ScriptedRng([], strict_deterministic=True).permutation(3)
    with pytest.raises(UnsupportedChance, match="random"):
        ScriptedRng([]).random()
    with pytest.raises(UnsupportedChance, match="weighted"):
        ScriptedRng([]).choice(3, p=[0.5, 0.25, 0.25])
    with pytest.raises(ValueError, match="not in"):
        ScriptedRng([9]).integers(1, 9)


def test_beasty_borders_die_is_an_explicit_chance_node_of_eight_outcomes():
    game = bridge.load_game("beasty_borders")
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 9  # the first tile of the shuffle
    while state.is_chance_node():
        state.apply_action(0)
    engine = bridge.engine_of(game)
    placed = next(a for a in state.legal_actions() if a != engine.pass_action)
    before = engine.clone(state.engine_state)
    state.apply_action(placed)
    assert state.is_chance_node() and state.chance_outcomes() == [(i, 0.125) for i in range(8)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 4) == "integers(1, 9) -> 5"
    child = state.child(4)
    # the engine, told the same placement and a 5, reaches the same position
    expected = engine.clone(before)
    engine.apply(expected, placed, ScriptedRng([4]))
    assert child.engine_state.roll == 5
    assert engine.state_to_json(child.engine_state) == engine.state_to_json(expected)


def test_deterministic_games_have_no_chance_nodes():
    for game, options in (("battle_sheep", {}), ("bestiarium", {"board_size": 5})):
        state = bridge.load_game(game, **options).new_initial_state()
        rng = np.random.default_rng(0)
        while not state.is_terminal():
            assert not state.is_chance_node()
            state.apply_action(int(rng.choice(state.legal_actions())))


# ----- Boaring: simultaneous bids and hidden hands -------------------------------------------------------
def food_picks(order: list[int]) -> list[int]:
    """The scripted outcomes that make ``permutation(70)`` return ``order`` (card index -> Fisher-Yates picks)."""
    remaining, picks = list(range(70)), []
    for card in order[:-1]:
        picks.append(remaining.index(card))
        remaining.remove(card)
    return picks


def deal(seat0_cards: list[int], seat1_cards: list[int]) -> list[int]:
    """Chance outcomes of a 2-player Boaring set-up: animal deck unshuffled; food card ``i`` (value i // 7 + 1)
    dealt seat 0 the first ten, seat 1 the next ten, the rest in descending order (pile top: the lowest)."""
    rest = sorted(set(range(70)) - set(seat0_cards) - set(seat1_cards), reverse=True)
    return [0] * 37 + food_picks(seat0_cards + seat1_cards + rest)


def test_boaring_information_states_hide_the_other_hand():
    game = bridge.load_game("boaring", num_players=2)
    seat1 = [7 * 4 + k for k in range(7)] + [7 * 5, 7 * 5 + 1, 7 * 5 + 2]  # 5 x7, 6 x3
    hand_a = [1, 7, 14, 21, 42, 49, 56, 63, 64, 65]  # 1 2 3 4 7 8 9 10 10 10
    hand_b = [7 * 9 + k for k in range(7)] + [7 * 8, 7 * 8 + 1, 7 * 8 + 2]  # 10 x7, 9 x3
    states = []
    for hand in (hand_a, hand_b):
        state = game.new_initial_state()
        for outcome in deal(hand, seat1):
            state.apply_action(outcome)
        assert state.is_simultaneous_node()
        states.append(state)
    a, b = states
    assert a.engine_state.hands[0] != b.engine_state.hands[0]
    assert a.engine_state.hands[1] == b.engine_state.hands[1]
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.observation_string(1) == b.observation_string(1)
    assert a.observation_tensor(1) == b.observation_tensor(1)
    assert a.information_state_string(0) != b.information_state_string(0)
    assert a.legal_actions(0) != b.legal_actions(0) and a.legal_actions(1) == b.legal_actions(1)
    # both bid 10 and 5: revealed together, so seat 1 still cannot tell the deals apart
    for state in (a, b):
        state.apply_actions([9, 4])
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.information_state_string(1).endswith("| L1:10,5")  # the reveal, in the public round log


def test_boaring_privileged_observer_is_the_global_state():
    game = bridge.load_game("boaring", num_players=2)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(0)
    observer = game.make_py_observer(
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
        )
    )
    observer.set_from(state, 0)
    assert np.array_equal(observer.tensor, bridge.engine_of(game).global_state(state.engine_state))
    with pytest.raises(ValueError, match="SINGLE_PLAYER"):
        game.make_py_observer(
            pyspiel.IIGObservationType(
                perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
            )
        )


def test_serialisation_and_pickle_round_trip_mid_game():
    for game, options in (("boaring", {"num_players": 3}), ("beasty_borders", {})):
        loaded = bridge.load_game(game, **options)
        state = loaded.new_initial_state()
        rng = np.random.default_rng(1)
        for _ in range(60):
            if state.is_chance_node():
                state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
            elif state.is_simultaneous_node():
                state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(loaded.num_players())])
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert not state.is_terminal()
        for copy in (loaded.deserialize_state(state.serialize()), pickle.loads(pickle.dumps(state)), state.clone()):
            assert copy.history() == state.history() and str(copy) == str(state)
            assert copy.information_state_string(0) == state.information_state_string(0)
            assert (
                play_randomly(copy, np.random.default_rng(2)).returns()
                == play_randomly(state.clone(), np.random.default_rng(2)).returns()
            )


# ----- OpenSpiel's algorithms ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "game,options", [("beasty_borders", {}), ("bestiarium", {"board_size": 5}), ("battle_sheep", {})]
)
def test_mcts_bot_plays_whole_games(game, options):
    """OpenSpiel's MCTSBot (random rollouts) plays a whole game against a random bot, with legal moves only."""
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    loaded = bridge.load_game(game, **options)
    rs = np.random.RandomState(0)
    bots = [
        mcts.MCTSBot(
            loaded, uct_c=2.0, max_simulations=12, evaluator=mcts.RandomRolloutEvaluator(1, rs), random_state=rs
        ),
        UniformRandomBot(1, rs),
    ]
    returns = pyspiel.evaluate_bots(loaded.new_initial_state(), bots, 0)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_outcome_sampling_mccfr_on_two_player_boaring():
    """No Boaring configuration is small enough for exact CFR (docs/openspiel.md says why); outcome-sampling
    MCCFR runs on 2-player Boaring (turn-based) and yields a valid average policy on the information states it
    visited."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = pyspiel.convert_to_turn_based(bridge.load_game("boaring", num_players=2))
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(6):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions()) and abs(sum(probs.values()) - 1.0) < 1e-9
    assert len(solver._infostates) > 50


# ----- Shimmy: back to PettingZoo ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "game,options", [("beasty_borders", {}), ("boaring", {"num_players": 2}), ("bestiarium", {"board_size": 5})]
)
def test_shimmy_openspiel_compatibility_passes_pettingzoos_api_test(game, options):
    from pettingzoo.test import api_test
    from shimmy import OpenSpielCompatibilityV0

    # game_name + config, not env=: Shimmy's reset() reloads the game by name with `config`
    env = OpenSpielCompatibilityV0(game_name=bridge.GAME_NAMES[game], config=options or None, render_mode=None)
    api_test(env, num_cycles=300, verbose_progress=False)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(bridge.load_game(game, **options).num_players())]
