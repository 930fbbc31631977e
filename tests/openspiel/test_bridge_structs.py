"""OpenSpiel 2's structs on the bridge (envs/openspiel): ``to_struct`` / ``to_json`` (the world state, as
OpenSpiel's own games give it), ``to_observation_struct(p)`` (:func:`envs.common.seat_view.seat_view`), and
``action_to_struct`` / ``struct_to_actions`` / ``apply_action_struct``, on every bridge game."""

from __future__ import annotations

import json

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import envs.openspiel as bridge  # noqa: E402
from envs.common.seat_view import seat_view  # noqa: E402

GAMES = sorted(bridge.GAME_NAMES)


def load(key: str):
    return pyspiel.load_game(bridge.GAME_NAMES[key], {"num_players": 3} if key.startswith("boaring") else {})


@pytest.mark.parametrize("key", GAMES)
def test_structs_through_a_whole_game(key):
    """At every node: ``to_json`` is ``to_struct``'s JSON and ``to_dict``'s; each player's observation struct is its
    seat view with the moves OpenSpiel takes from it; every action's struct maps back to it, and
    ``apply_action_struct`` plays it."""
    game = load(key)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    n = game.num_players()
    kinds = set()
    while True:
        data = json.loads(state.to_json())
        assert data == json.loads(state.to_struct().to_json()) == state.to_dict()
        assert data["openspiel"]["current_player"] == state.current_player()
        assert data["openspiel"]["game"] == bridge.GAME_NAMES[key]
        for p in range(n):
            obs = json.loads(state.to_observation_struct(p).to_json())
            assert obs["openspiel"] == data["openspiel"]
            if state.engine_state is None:
                assert obs["setting_up"]
                continue
            legal = [] if state.is_chance_node() or state.is_terminal() else state.legal_actions(p)
            assert [m["action"] for m in obs["legal_moves"]] == legal
            assert obs["your_turn"] == bool(legal)
            assert [m["number"] for m in obs["legal_moves"]] == list(range(1, len(legal) + 1))
            view = seat_view(state.engine, state.engine_state, p)
            assert {k: v for k, v in obs.items() if k not in ("legal_moves", "to_move", "your_turn", "openspiel")} == {
                k: v for k, v in view.items() if k not in ("legal_moves", "to_move", "your_turn")
            }
        if state.is_terminal():
            assert data["terminal"] and data["result"]["returns"] == state.returns()
            break
        if state.is_chance_node():
            kinds.add("chance")
            assert data["openspiel"]["chance"]["outcomes"] == len(state.chance_outcomes())
            outcome = int(rng.integers(len(state.chance_outcomes())))
            st = state.action_to_struct(pyspiel.PlayerId.CHANCE, outcome)
            assert state.struct_to_actions(st) == [outcome]
            state.apply_action(outcome)
        elif state.is_simultaneous_node():
            kinds.add("simultaneous")
            assert sorted(data["to_move"]) == list(range(n))  # in the order the engine takes them
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(n)])
        else:
            kinds.add("turn")
            player = state.current_player()
            assert data["to_move"] == [player]
            assert [m["action"] for m in data["legal_moves"][str(player)]] == state.legal_actions()
            action = int(rng.choice(state.legal_actions()))
            st = state.action_to_struct(player, action)
            assert json.loads(st.to_json()) == {
                "player": player,
                "action": action,
                "notation": state.action_to_string(player, action),
            }
            assert state.struct_to_actions(st) == [action]
            state.apply_action_struct(st)
    assert "turn" in kinds


def test_the_world_struct_holds_every_hand_and_an_observation_struct_only_its_own():
    """Boaring: ``to_json`` is the world state (every hand, as OpenSpiel's gin_rummy gives both); a player's
    observation struct holds its own hand only, and no other seat's face-down bid."""
    game = load("boaring_turn_based")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while state.is_chance_node():
        state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
    state.apply_action(state.legal_actions()[0])  # seat 0 bids face down
    world = json.loads(state.to_json())["board"]["players"]
    assert all(p["hand"] is not None for p in world) and world[0]["pending"] is not None
    for seat in range(3):
        players = json.loads(state.to_observation_struct(seat).to_json())["board"]["players"]
        assert [p["hand"] is not None for p in players] == [s == seat for s in range(3)]
        assert (players[0]["pending"] is not None) == (seat == 0) and players[0]["committed"]


def test_a_move_struct_names_the_move_as_a_language_model_would():
    """``struct_to_actions`` (the method OpenSpiel calls) also reads ``{"move": notation or listed number}`` and
    refuses an illegal one with a BridgeError saying why."""
    game = load("bestiarium")
    state = game.new_initial_state()
    first = state.legal_actions()[0]
    assert state._struct_to_actions({"move": state.action_to_string(0, first)}) == [first]
    assert state._struct_to_actions({"move": 1, "player": 0}) == [first]
    with pytest.raises(bridge.BridgeError, match="not one of the"):
        state._struct_to_actions({"move": 10_000})
    with pytest.raises(bridge.BridgeError, match="has no move"):
        state._struct_to_actions({"move": "a1", "player": 1})
    with pytest.raises(bridge.BridgeError, match="names a move"):
        state._struct_to_actions({"what": 1})
