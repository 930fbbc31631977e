"""What the OpenSpiel bridge refuses, and how: illegal actions as OpenSpiel's clients expect them."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import envs.openspiel as bridge  # noqa: E402

GAMES = [
    ("battle_sheep", {}),
    ("bestiarium", {"board_size": 5}),
    ("beasty_borders", {}),
    ("boaring", {"num_players": 2}),
]


def acting_masks(state) -> list[list[int]]:
    """The masks of the seats that act at a decision node (every seat at a simultaneous node)."""
    if state.is_simultaneous_node():
        return [state.legal_actions_mask(p) for p in range(state.num_players())]
    return [state.legal_actions_mask()]


def decision_node(game: str, options: dict, seed: int = 0):
    """A state of ``game`` a few plies in, at a decision node where some action is illegal (chance resolved at
    random)."""
    state = bridge.load_game(game, **options).new_initial_state()
    rng = np.random.default_rng(seed)
    plies = 0
    while state.is_chance_node() or plies < 3 or all(map(all, acting_masks(state))):
        if state.is_chance_node():
            state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
            plies += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            plies += 1
    assert not state.is_terminal()
    return state


@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_an_illegal_action_is_a_spiel_error_and_a_value_error(game, options):
    """RLlib's ``OpenSpielEnv`` and OpenSpiel's other clients catch ``pyspiel.SpielError`` around ``apply_action``
    (OpenSpiel's C++ games raise it); the bridge raised a bare ValueError, which they let through. The refusal is
    both, names the action, and changes nothing."""
    state = decision_node(game, options)
    before = (state.history(), str(state))
    if state.is_simultaneous_node():
        seats = [state.legal_actions(p) for p in range(state.num_players())]
        illegal = next(a for a in range(state.num_distinct_actions()) if a not in seats[1])
        calls = [lambda: state.apply_actions([seats[0][0], illegal])]
    else:
        illegal = next(a for a in range(state.num_distinct_actions()) if a not in state.legal_actions())
        mover = state.current_player()
        joint = [illegal if p == mover else 0 for p in range(state.num_players())]
        calls = [lambda: state.apply_action(illegal), lambda: state.apply_actions(joint)]
    for call in calls:
        with pytest.raises(pyspiel.SpielError, match=f"action {illegal} is not legal") as caught:
            call()
        assert isinstance(caught.value, ValueError) and isinstance(caught.value, bridge.BridgeError)
        assert (state.history(), str(state)) == before


def test_a_chance_outcome_out_of_range_and_a_move_after_the_end_are_spiel_errors():
    state = bridge.load_game("beasty_borders").new_initial_state()
    assert state.is_chance_node()
    with pytest.raises(pyspiel.SpielError, match="not in"):
        state.apply_action(len(state.chance_outcomes()))
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(int(rng.choice(actions)))
    with pytest.raises(pyspiel.SpielError, match="over"):
        state.apply_action(0)
