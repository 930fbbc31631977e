"""What the OpenSpiel bridge refuses, and how: illegal actions as OpenSpiel's clients expect them, and state strings
that carry anything but the JSON snapshot (a pickle that runs code, an older Barnyard's pickled state, a damaged
or spliced snapshot)."""

from __future__ import annotations

import base64
import collections
import io
import json
import os
import pickle
import pickletools
from copy import deepcopy

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


def mid_chance(game: str, options: dict, seed: int = 0):
    """A state of ``game`` at a chance node in the middle of a player's move (Beasty Borders' die after a
    placement, a Boaring reshuffle, one outcome drawn where it takes more) or, failing that, in the set-up's
    shuffle; None for a deterministic game."""
    state = bridge.load_game(game, **options).new_initial_state()
    if not state.is_chance_node():
        return None
    rng = np.random.default_rng(seed)
    setup = None
    while not state.is_terminal():
        if state.is_chance_node():
            if len(state.history()) == 1:
                setup = state.clone()
            if state.engine_state is not None:  # one outcome drawn, if the transition needs more than one
                deeper = state.child(0)
                return deeper if deeper.is_chance_node() else state
            state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return setup


def play_randomly(state, rng: np.random.Generator):
    """Play ``state`` to the end with uniform chance and uniform legal actions; returns it."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


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


# ----- state strings: the JSON snapshot, never a pickle of Python objects ----------------------------------------
CODE_OPCODES = {
    "GLOBAL",
    "STACK_GLOBAL",
    "REDUCE",
    "BUILD",
    "INST",
    "OBJ",
    "NEWOBJ",
    "NEWOBJ_EX",
    "EXT1",
    "EXT2",
    "EXT4",
    "PERSID",
    "BINPERSID",
}
"""The pickle opcodes that name or call Python objects (everything else builds str, int, list, dict ...)."""


def dict_field(text: str) -> bytes:
    """The ``__dict__=`` field of an OpenSpiel state string, decoded (OpenSpiel's C++ writes it as a base64 pickle)."""
    return base64.b64decode(text.rpartition("__dict__=")[2])


def with_dict_field(text: str, payload: bytes) -> str:
    """``text`` with its ``__dict__=`` field replaced by ``payload`` (raw pickle bytes)."""
    return text.rpartition("__dict__=")[0] + "__dict__=" + base64.b64encode(payload).decode()


class RunsCommand:
    """A pickle payload that runs a shell command when unpickled (what the crafted strings carried)."""

    def __init__(self, command: str):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


class RecordingUnpickler(pickle.Unpickler):
    """An unpickler that records every global it loads."""

    def __init__(self, file: io.BytesIO):
        super().__init__(file)
        self.named: list[str] = []

    def find_class(self, module: str, name: str):
        self.named.append(f"{module}.{name}")
        return super().find_class(module, name)


class PickledState:
    """Pickles as a Barnyard state does (``pickle.dumps(state)``), with a given game-and-state string."""

    def __init__(self, text: str):
        self.text = text

    def __reduce__(self):
        return (bridge._state_from_string, (self.text,))


@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_a_crafted_pickle_in_a_state_string_runs_nothing_and_is_refused(game, options, tmp_path):
    """OpenSpiel's C++ hands a Python state string's ``__dict__=`` field to ``pickle.loads``: a crafted field ran
    ``os.system`` (the marker file appeared) through every way in. Now pickle is refused any global there, with an
    error naming what was asked for."""
    state = decision_node(game, options)
    loaded = state.get_game()
    marker = tmp_path / "marker"
    honest = pyspiel.serialize_game_and_state(loaded, state)
    for payload in (
        pickle.dumps({"snapshot": RunsCommand(f"touch {marker}")}),
        pickle.dumps(RunsCommand(f"touch {marker}")),
        pickle.dumps({"_position": RunsCommand(f"touch {marker}")}, protocol=0),
    ):
        crafted = with_dict_field(honest, payload)
        state_part = crafted.split("[State]\n", 1)[1]
        pickled_state = pickle.dumps(PickledState(crafted))  # what pickle.dumps(state) gives, with this string
        for way_in, argument in (
            (pyspiel.deserialize_game_and_state, crafted),
            (loaded.deserialize_state, state_part),
            (pickle.loads, pickled_state),
        ):
            with pytest.raises(pyspiel.SpielError, match=r"refused: .* asks pickle for (posix|nt)\.system") as caught:
                way_in(argument)
            assert isinstance(caught.value, ValueError)
            assert not marker.exists()
    assert pickle.loads(pickle.dumps(collections.OrderedDict(a=1))) == {"a": 1}  # ordinary unpickling is untouched


def test_an_older_barnyards_pickle_carrying_string_is_refused_never_unpickled(monkeypatch):
    """An older Barnyard wrote the state's attributes as a pickle that called ``envs.openspiel._restore_holder``.
    Such a string is refused with a clear error, and pickle never calls what it names, even where that exists."""
    calls = []

    def _restore_holder(*args):  # the old restore function, present again so that only the refusal can stop it
        calls.append(args)

    _restore_holder.__module__, _restore_holder.__qualname__ = bridge.__name__, "_restore_holder"
    monkeypatch.setattr(bridge, "_restore_holder", _restore_holder, raising=False)

    class OldHolder:
        def __reduce__(self):
            return (_restore_holder, ("boaring", json.dumps({"num_players": 2, "reward": "pairwise"}), None))

    state = decision_node("boaring", {"num_players": 2})
    old_attributes = {"_key": "boaring", "_held": OldHolder(), "_pending": None, "_joint": False, "_draws": []}
    old = with_dict_field(pyspiel.serialize_game_and_state(state.get_game(), state), pickle.dumps(old_attributes))
    with pytest.raises(pyspiel.SpielError, match=r"asks pickle for envs\.openspiel\._restore_holder.*older Barnyard"):
        pyspiel.deserialize_game_and_state(old)
    assert calls == []


@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_state_strings_hold_the_json_snapshot_only_and_round_trip(game, options):
    """The ``__dict__=`` field (a pickle: OpenSpiel's C++ writes it so) holds one dict with one str, the JSON
    snapshot, and no opcode that names or calls a Python object; ``pickle.dumps(state)`` names only the bridge's
    reader of that string. Both bring back the same state, at a decision node and in the middle of a chance
    transition (a move waiting for its die roll or shuffle)."""
    for state in (decision_node(game, options), mid_chance(game, options)):
        if state is None:
            continue
        loaded = state.get_game()
        text = pyspiel.serialize_game_and_state(loaded, state)
        field = dict_field(text)
        assert not {op.name for op, _, _ in pickletools.genops(field)} & CODE_OPCODES
        fields = pickle.loads(field)
        assert list(fields) == ["snapshot"] and isinstance(fields["snapshot"], str)
        snapshot = json.loads(fields["snapshot"])
        assert snapshot["format"] == bridge.SNAPSHOT_FORMAT
        assert snapshot["history"] == [[p.player, p.action] for p in state.full_history()]
        if state.engine_state is not None:
            assert snapshot["position"] == state.engine.state_to_json(state.engine_state)
        pickled = pickle.dumps(state)
        reader = RecordingUnpickler(io.BytesIO(pickled))
        unpickled = reader.load()
        assert reader.named == ["envs.openspiel._state_from_string"]
        for copy in (
            pyspiel.deserialize_game_and_state(text)[1],
            loaded.deserialize_state(state.serialize()),
            unpickled,
            state.clone(),
            deepcopy(state),
        ):
            assert type(copy) is type(state)
            assert (copy.history(), str(copy), copy.serialize()) == (state.history(), str(state), state.serialize())
            assert (
                play_randomly(copy, np.random.default_rng(2)).returns()
                == play_randomly(state.clone(), np.random.default_rng(2)).returns()
            )


def test_a_damaged_or_spliced_snapshot_is_refused_and_changes_nothing():
    """What a state string's ``__dict__=`` field may set is the JSON snapshot, and the snapshot is checked: its
    format, its game and options against the string's game, its history against the string's history line, the
    engine state (the engine's own checks), a pending move (replayed by the engine). Anything else is refused
    with the reason, and a state that is set one directly stays as it was."""
    state = decision_node("boaring", {"num_players": 2})
    text = pyspiel.serialize_game_and_state(state.get_game(), state)
    snapshot = json.loads(pickle.loads(dict_field(text))["snapshot"])
    other_game = decision_node("beasty_borders", {})
    three_players = decision_node("boaring", {"num_players": 3})

    def edited(**fields):
        return json.dumps({**snapshot, **fields})

    bad_hands = dict(snapshot["position"], hands=[[9] * 10 for _ in snapshot["position"]["hands"]])
    cases = {
        "not json": ({"snapshot": "{not json"}, "damaged"),
        "not text": ({"snapshot": 5}, "JSON snapshot \\(text\\), not int"),
        "another format": ({"snapshot": edited(format="other/1")}, "not a Barnyard state snapshot"),
        "another game": ({"snapshot": other_game._snapshot_json()}, "snapshot is of 'barnyard_beasty_borders'"),
        "other options": ({"snapshot": three_players._snapshot_json()}, "snapshot is of 'barnyard_boaring' with"),
        "other history": ({"snapshot": edited(history=snapshot["history"][:-1])}, "history"),
        "damaged position": ({"snapshot": edited(position=bad_hands)}, "damaged"),
        "illegal pending move": ({"snapshot": edited(pending=[99, 99], joint=True)}, "damaged"),
        "another attribute": ({"snapshot": edited(), "_log": [[1, 2]]}, "attribute '_log'"),
        "only another attribute": ({"_position": 5}, "attribute '_position'"),
    }
    for name, (fields, reason) in cases.items():
        with pytest.raises(pyspiel.SpielError, match=f"refused: .*{reason}") as caught:
            pyspiel.deserialize_game_and_state(with_dict_field(text, pickle.dumps(fields)))
        assert isinstance(caught.value, ValueError), name
    before = state.serialize()
    for fields, reason in cases.values():
        if len(fields) == 1:
            ((key, value),) = fields.items()
            with pytest.raises(bridge.BridgeError, match=f"refused: .*{reason}"):
                setattr(state, key, value)
    assert state.serialize() == before
