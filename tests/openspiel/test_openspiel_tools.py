"""The OpenSpiel bridge under OpenSpiel's own tools: rl_environment and NFSP on simultaneous Boaring, IS-MCTS on
2-player Boaring, OpenSpiel's simultaneous-node contract, every spec-page option as a parameter, bad players."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import envs  # noqa: E402
import envs.openspiel as bridge  # noqa: E402
from envs.boaring.rules import NUM_ANIMALS  # noqa: E402


def to_bid(state):
    """Resolve chance nodes (outcome 0) until a decision node."""
    while state.is_chance_node():
        state.apply_action(0)
    return state


# ----- item 11: rl_environment and NFSP ---------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3])
def test_rl_environment_random_agents_play_simultaneous_boaring_to_the_end(num_players):
    """rl_environment applies every node of a simultaneous game with apply_actions, 0 for a seat without a legal
    action (the eat decisions too)."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(pyspiel.load_game("barnyard_boaring", {"num_players": num_players}), seed=3)
    rng = np.random.default_rng(0)
    time_step, steps, single = env.reset(), 0, 0
    while not time_step.last():
        legal = time_step.observations["legal_actions"]
        single += sum(1 for actions in legal if actions) == 1
        time_step = env.step([int(rng.choice(actions)) if actions else 0 for actions in legal])
        steps += 1
    assert steps >= NUM_ANIMALS and single > 0  # every round's bid, and some eat decisions
    assert abs(sum(time_step.rewards)) < 1e-9 and max(time_step.rewards) > 0
    # rl_environment picked the information-state tensor (provided now) as each player's observation
    assert len(time_step.observations["info_state"][0]) == env.observation_spec()["info_state"][0]


def test_nfsp_steps_on_simultaneous_boaring():
    """OpenSpiel's NFSP (PyTorch; the TensorFlow one needs TF) plays and learns for a few steps through
    rl_environment; a seat without a legal action passes 0."""
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    torch.manual_seed(0)
    np.random.seed(0)
    env = rl_environment.Environment(pyspiel.load_game("barnyard_boaring", {"num_players": 2}), seed=0)
    size = env.observation_spec()["info_state"][0]
    agents = [
        nfsp.NFSP(
            p,
            size,
            env.action_spec()["num_actions"],
            hidden_layers_sizes=[32],
            reservoir_buffer_capacity=1000,
            anticipatory_param=0.5,
            batch_size=16,
            learn_every=8,
            min_buffer_size_to_learn=16,
            replay_buffer_capacity=1000,
            epsilon_decay_duration=100,
            epsilon_start=0.5,
            epsilon_end=0.05,
            update_target_network_every=50,
        )
        for p in range(2)
    ]
    steps = 0
    for _ in range(20):  # until both have learned (a few games: learning starts once 16 samples are in)
        if all(loss is not None for agent in agents for loss in agent.loss):
            break
        time_step = env.reset()
        while not time_step.last():
            legal = time_step.observations["legal_actions"]
            actions = [0, 0]
            for p, agent in enumerate(agents):
                if legal[p]:
                    actions[p] = int(agent.step(time_step).action)
                    assert actions[p] in legal[p]
            time_step = env.step(actions)
            steps += 1
        for agent in agents:
            agent.step(time_step)
    assert steps >= NUM_ANIMALS
    assert all(agent.step_counter > 0 for agent in agents)
    assert all(loss is not None for agent in agents for loss in agent.loss)  # both learned something


# ----- item 12: OpenSpiel's simultaneous-node contract ------------------------------------------------------
def test_legal_actions_at_a_simultaneous_node_are_flat_joint_actions():
    game = bridge.load_game("boaring", num_players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
    assert state.is_simultaneous_node()
    per_seat = [state.legal_actions(p) for p in range(3)]
    total = int(np.prod([len(a) for a in per_seat]))
    assert min(len(a) for a in per_seat) >= 3 and state.legal_actions() == list(range(total))
    # OpenSpiel's numbering: seat 0 is the least significant digit
    flat = 1 + len(per_seat[0]) * (2 + len(per_seat[1]) * 1)
    joint = [per_seat[0][1], per_seat[1][2], per_seat[2][1]]
    assert (
        state.action_to_string(pyspiel.PlayerId.SIMULTANEOUS, flat)
        == "[" + ", ".join(f"play {a + 1}" for a in joint) + "]"
    )
    by_flat, by_joint = state.clone(), state.clone()
    by_flat.apply_action(flat)
    by_joint.apply_actions(joint)
    while by_flat.is_chance_node() and by_joint.is_chance_node():
        by_flat.apply_action(0)
        by_joint.apply_action(0)
    assert by_flat.engine_state.last_played == by_joint.engine_state.last_played == [a + 1 for a in joint]
    assert str(by_flat) == str(by_joint)
    for p in range(3):  # every seat played: one card fewer each
        assert sum(by_flat.engine_state.hands[p]) == sum(state.engine_state.hands[p]) - 1
    with pytest.raises(ValueError, match="not in"):
        state.clone().apply_action(total)
    with pytest.raises(ValueError, match="no single action mask"):
        state.legal_actions_mask()
    assert state.legal_actions_mask(0) == [int(a in per_seat[0]) for a in range(game.num_distinct_actions())]


def test_flat_joint_actions_are_listed_up_to_a_million_whatever_the_player_count():
    """docs/openspiel.md said that 7 or more players raise at ``legal_actions()``; the code raises above 10^6 flat
    joint actions (the product of each bidder's distinct values), which 7 players seldom reach (issue 50)."""
    assert bridge.MAX_FLAT_JOINT_ACTIONS == 10**6
    raised = {}
    for n in (7, 10):
        game = bridge.load_game("boaring", num_players=n)
        raised[n] = 0
        for seed in range(8):
            state = game.new_initial_state()
            rng = np.random.default_rng(seed)
            while state.is_chance_node():
                state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
            total = int(np.prod([len(state.legal_actions(p)) for p in range(n)]))
            if total <= bridge.MAX_FLAT_JOINT_ACTIONS:
                assert len(state.legal_actions()) == total
            else:
                raised[n] += 1
                with pytest.raises(ValueError, match="too many to list"):
                    state.legal_actions()
                state.apply_actions([state.legal_actions(p)[0] for p in range(n)])  # per player still works
    assert raised[7] == 0 and raised[10] > 0, raised


def test_apply_actions_at_an_eat_decision_takes_zero_for_the_others():
    game = bridge.load_game("boaring", num_players=2)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    while state.is_chance_node() or state.is_simultaneous_node() or state.engine_state.phase != 1:
        if state.is_chance_node():
            state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
        else:
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
        assert not state.is_terminal()
    eater = state.current_player()
    legal = state.legal_actions(eater)
    other = 1 - eater
    assert state.legal_actions(other) == []
    with pytest.raises(ValueError, match="must pass 0"):
        state.clone().apply_actions([legal[-1] if p == other else legal[-1] for p in range(2)])
    via_actions, via_action = state.clone(), state.clone()
    via_actions.apply_actions([legal[-1] if p == eater else 0 for p in range(2)])
    via_action.apply_action(legal[-1])
    assert str(via_actions) == str(via_action)


# ----- item 13: parameters and players ----------------------------------------------------------------------
@pytest.mark.parametrize("game", sorted({spec.game for spec in bridge.SPECS.values()}))
def test_every_engine_option_is_an_openspiel_parameter(game):
    """Every option of the game's table (the spec page's options) can be passed to pyspiel.load_game."""
    options = set(envs.game_options(game).names)
    loaded = bridge.load_game(game)
    assert set(loaded.get_type().parameter_specification) == options
    assert set(loaded.get_parameters()) == options


def test_battle_sheep_canvas_radius_is_passable():
    game = pyspiel.load_game("barnyard_battle_sheep", {"num_players": 3, "canvas_radius": 14})
    assert bridge.engine_of(game).canvas_radius == 14
    default = pyspiel.load_game("barnyard_battle_sheep", {"num_players": 3})
    assert bridge.engine_of(default).canvas_radius == 13  # 0 (the default) = the engine's radius for 3 players
    assert default.get_parameters()["canvas_radius"] == 13
    assert bridge.engine_of(pyspiel.load_game(str(default))) is bridge.engine_of(default)
    with pytest.raises(Exception, match="canvas_radius=3 is too small"):
        pyspiel.load_game("barnyard_battle_sheep", {"canvas_radius": 3})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("player", [7, 4, -3])
def test_bad_players_are_clear_errors(player):
    game = bridge.load_game("battle_sheep", num_players=4)
    state = game.new_initial_state()
    for call in (
        state.legal_actions,
        state.observation_string,
        state.information_state_string,
        state.observation_tensor,
        state.legal_actions_mask,
    ):
        with pytest.raises((ValueError, pyspiel.SpielError), match="player|Player"):
            call(player)
    boaring = to_bid(bridge.load_game("boaring").new_initial_state())
    with pytest.raises(ValueError, match="not a player of this 4-player game"):
        boaring.legal_actions(player)
    with pytest.raises(ValueError, match="not a player"):
        boaring.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0, 0.0, 1.0))


# ----- item 14: information-state tensors, resampling and IS-MCTS ---------------------------------------------
def play_random(state, rng, until=None):
    while not state.is_terminal() and (until is None or len(state.history()) < until):
        if state.is_chance_node():
            state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("name", ["boaring", "boaring_turn_based"])
def test_information_state_tensor_and_string_are_compact_and_hide_the_other_hand(name):
    game = bridge.load_game(name, num_players=2)
    assert game.get_type().provides_information_state_tensor
    size = game.information_state_tensor_size()
    assert size == 112 + 38 * 40
    rng = np.random.default_rng(1)
    state = play_random(game.new_initial_state(), rng, until=150)
    while state.is_chance_node():
        state.apply_action(0)
    assert not state.is_terminal() and state.engine_state.hand_size[1] >= 2
    for p in range(2):
        # the same information state after the hidden cards are dealt again: same string, same tensor
        sample = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(7, 0.0, 1.0))
        assert sample.engine_state.hands[p] == state.engine_state.hands[p]
        assert sample.information_state_string(p) == state.information_state_string(p)
        assert sample.information_state_tensor(p) == state.information_state_tensor(p)
        assert len(state.information_state_tensor(p)) == size
    assert any(
        state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(s, 0.0, 1.0)).engine_state.hands[1]
        != state.engine_state.hands[1]
        for s in range(5)
    )
    end = play_random(state, rng)
    assert len(end.information_state_string(0)) < 2000  # 16 KB before: the whole per-seat record
    assert sum(end.information_state_tensor(0)[112:]) >= 38 * 4  # every round: animal, card, two bids


def test_boaring_turn_based_hides_the_earlier_bids_of_a_round():
    game = bridge.load_game("boaring_turn_based", num_players=2)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    state = to_bid(game.new_initial_state())
    first = state.current_player()
    second = 1 - first
    legal = state.legal_actions()
    a, b = state.child(legal[0]), state.child(legal[-1])
    assert a.current_player() == second
    assert a.information_state_string(second) == b.information_state_string(second)
    assert a.information_state_tensor(second) == b.information_state_tensor(second)
    assert a.information_state_string(first) != b.information_state_string(first)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_ismcts_plays_full_games_of_two_player_boaring():
    """OpenSpiel's IS-MCTS (resample_from_infostate at every simulation) against a random bot, both seats."""
    from open_spiel.python.algorithms import ismcts, mcts
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    game = bridge.load_game("boaring_turn_based", num_players=2)
    for seat in range(2):
        rs = np.random.RandomState(seat)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=4, random_state=rs)
        bots = [bot, UniformRandomBot(1, rs)] if seat == 0 else [UniformRandomBot(0, rs), bot]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seat)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
