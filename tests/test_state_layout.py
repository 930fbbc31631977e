"""``envs.common.state``: a state declared once gives the batched type, fresh states, compiled copies and resets,
the reference state class, the conversions and the JSON form; a bad declaration or snapshot is refused."""

from __future__ import annotations

from array import array

import numpy as np
import pytest
from numba import njit

from envs.common.game import SnapshotError
from envs.common.jit import NO_REFCOUNT, inline_jit
from envs.common.state import Field, StateLayout, copy_fields, copy_fields_between, reset_fields

TOY = StateLayout(
    "ToyBatchedState",
    __name__,
    Field("hands", np.int8, ("players", 3), fill=1),
    Field("pile", np.int8, (5,), length="pile_len"),
    Field("pile_len", np.int8),
    Field("cells", np.int8, (4,), fill=-1, container=lambda v: array("b", v)),
    Field("current", np.int8, idle=-1),
    Field("plies", np.int32, batched_only=True),
    Field("rng", np.uint64, batched_only=True, copied=False),
)
ToyBatchedState = TOY.batched_type


class ToyState(TOY.reference_base()):  # type: ignore[misc]
    __slots__ = ()


@njit(**NO_REFCOUNT)
def copy_and_reset(st, other):
    copy_fields(st, 0, 1)
    copy_fields_between(st, 0, other, 0)
    reset_fields(st, 2)


def test_a_fresh_batched_state_has_the_declared_shapes_and_idle_values():
    st = TOY.new_state(3, {"players": 2})
    assert type(st) is ToyBatchedState and ToyBatchedState.__module__ == __name__
    assert st.hands.shape == (3, 2, 3) and st.hands.dtype == np.int8 and (st.hands == 1).all()
    assert (st.current == -1).all() and (st.cells == -1).all() and st.rng.dtype == np.uint64
    with pytest.raises(ValueError, match="players"):
        TOY.new_state(1)


def test_the_reference_class_holds_the_reference_fields_fresh():
    ref = ToyState(players=2)
    assert TOY.reference_class is ToyState
    assert ref.hands == [[1, 1, 1], [1, 1, 1]] and ref.pile == [] and ref.current == 0
    assert ref.cells == array("b", [-1] * 4)
    assert not hasattr(ref, "plies") and not hasattr(ref, "pile_len")
    twin = ref.clone()
    twin.hands[0][0] = 5
    twin.cells[0] = 3
    assert ref.hands[0][0] == 1 and ref.cells[0] == -1 and twin != ref


def test_compiled_copies_and_resets_follow_the_declaration():
    st = TOY.new_state(3, {"players": 2})
    other = TOY.new_state(1, {"players": 2})
    for k, column in enumerate(st):
        column[...] = np.arange(column.size).reshape(column.shape) % 7 + k
    before = [column.copy() for column in st]
    copy_and_reset(st, other)
    for f, column, old, theirs in zip(TOY.fields, st, before, other):
        assert np.array_equal(column[1], old[0] if f.copied else old[1]), f.name
        if f.copied:
            assert np.array_equal(theirs[0], old[0]), f.name
            assert (column[2] == f.fill).all(), f.name
        else:
            assert np.array_equal(column[2], old[2]), f.name


def test_the_conversions_round_trip_and_cut_piles_to_their_count():
    st = TOY.new_state(2, {"players": 2})
    st.pile[0] = [4, 5, 6, 9, 9]
    st.pile_len[0] = 3
    st.hands[0] = [[1, 2, 3], [4, 5, 6]]
    st.cells[0] = [0, 1, -1, 2]
    st.current[0] = 1
    st.plies[1] = 7
    ref = ToyState(players=2)
    TOY.to_reference(st, 0, ref)
    assert ref.pile == [4, 5, 6] and ref.hands == [[1, 2, 3], [4, 5, 6]] and ref.current == 1
    assert ref.cells == array("b", [0, 1, -1, 2])
    TOY.from_reference(ref, st, 1)
    assert st.pile[1].tolist() == [4, 5, 6, 0, 0] and st.pile_len[1] == 3 and st.plies[1] == 7  # batched-only kept


def test_the_json_form_round_trips_and_refuses_damage_without_writing():
    ref = ToyState(players=2)
    ref.pile = [3, 2]
    ref.hands[1] = [0, 7, 0]
    data = TOY.to_json(ref)
    assert data == {"hands": [[1, 1, 1], [0, 7, 0]], "pile": [3, 2], "cells": [-1] * 4, "current": 0}
    back = ToyState(players=2)
    TOY.from_json(data, back, {"players": 2})
    assert back == ref and isinstance(back.cells, array)
    damaged = [
        ({**data, "current": True}, "current"),
        ({**data, "current": 300}, "current"),
        ({**data, "pile": [1] * 6}, "at most 5"),
        ({**data, "hands": [[1, 1, 1]]}, "hands"),
        ({**data, "hands": [[1, 1], [1, 1]]}, "hands"),
        ({k: v for k, v in data.items() if k != "cells"}, "missing \\['cells'\\]"),
        ({**data, "extra": 1}, "unknown \\['extra'\\]"),
        ([1, 2], "JSON object"),
    ]
    for bad, message in damaged:
        target = ToyState(players=2)
        with pytest.raises(SnapshotError, match=message):
            TOY.from_json(bad, target, {"players": 2})
        assert target == ToyState(players=2)  # nothing written


def test_a_bad_declaration_is_refused():
    with pytest.raises(ValueError, match="twice"):
        StateLayout("Twice", __name__, Field("a", np.int8), Field("a", np.int8))
    with pytest.raises(ValueError, match="length"):
        StateLayout("Counted", __name__, Field("a", np.int8, (3,), length="n"))


def test_a_field_the_game_converts_itself_is_written_and_read_by_the_game():
    layout = StateLayout(
        "OwnBatchedState", __name__, Field("board", np.int8, (3,), reference=False), Field("turn", np.int8)
    )

    class Own:
        board = "x.o"
        turn = 2

    with pytest.raises(ValueError, match="board"):
        layout.to_json(Own())
    data = layout.to_json(Own(), own={"board": "x.o"})
    assert list(data) == ["board", "turn"] and data == {"board": "x.o", "turn": 2}
    target = Own()
    target.turn = 0
    layout.from_json({"board": "not checked here", "turn": 5}, target)
    assert target.turn == 5 and target.board == "x.o"  # the game reads its own field
    with pytest.raises(SnapshotError, match="board"):
        layout.from_json({"turn": 5}, target)


@inline_jit
def mark_if_unset(st, b):
    if st.current[b] == 0:
        st.current[b] = 7
    st.hands[b, 0, 0] = st.current[b]


@njit(**NO_REFCOUNT)
def reset_then_mark(st, b):
    reset_fields(st, b)
    mark_if_unset(st, b)


@njit(**NO_REFCOUNT)
def copy_then_mark(st, b):
    copy_fields(st, 1, b)
    mark_if_unset(st, b)


def test_the_compiled_copy_and_reset_keep_an_inlined_helper_that_follows():
    """numba 0.68 drops statements when an ``overload(inline="always")`` and an inlined helper with a branch meet in
    one function (their blocks' labels collide, silently), so the declaration's copy and reset are compiled as
    functions of their own: the helper's writes must all happen."""
    for kernel in (reset_then_mark, copy_then_mark):
        st = TOY.new_state(2, {"players": 2})
        st.current[1] = 0  # what the copy brings into row 0
        kernel(st, 0)
        assert st.current[0] == 7 and st.hands[0, 0, 0] == 7, kernel


def test_a_bool_field_stays_bool_in_the_reference_state_and_the_snapshot():
    layout = StateLayout("FlagBatchedState", __name__, Field("over", np.bool_), Field("moves", np.bool_, (2,), fill=1))

    class Flags(layout.reference_base()):  # type: ignore[misc]
        __slots__ = ()

    fresh = Flags()
    assert fresh.over is False and fresh.moves == [True, True]
    st = layout.new_state(1)
    st.over[0] = True
    layout.to_reference(st, 0, fresh)
    assert fresh.over is True and layout.to_json(fresh) == {"over": True, "moves": [True, True]}
    back = Flags()
    layout.from_json({"over": True, "moves": [False, True]}, back)
    assert back.over is True and back.moves == [False, True]
    with pytest.raises(SnapshotError, match="over"):
        layout.from_json({"over": 1, "moves": [False, True]}, back)


def test_the_fresh_value_of_a_field_is_what_the_generated_init_writes():
    fresh = ToyState(players=3)
    for f in TOY.reference_fields:
        value = TOY.fresh_value(f, {"players": 3})
        assert type(value) is type(getattr(fresh, f.name)) and value == getattr(fresh, f.name), f.name
