"""A game's state declared once (:class:`StateLayout`): one line per field, from which follow the batched engine's
state type and ``new_state``, its ``copy_row``, the reference engine's state class (slots, fresh values, ``clone``),
the state's JSON form and the conversions between the two engines.

A game writes its declaration in ``kernels.py`` (the first room that needs it; ``rules.py`` builds its state class on
it, ``render.py`` its snapshots, ``fast.py`` its batched state)::

    STATE = StateLayout(
        "PigBatchedState",
        __name__,
        Field("scores", np.int32, (2,), doc="banked score per seat"),
        Field("current", np.int8, idle=TERMINAL, doc="seat to move, TERMINAL when over"),
        Field("plies", np.int32, batched_only=True, doc="moves applied (the ply cap)"),
        Field("rng", np.uint64, batched_only=True, copied=False, doc="the row's generator"),
    )
    PigBatchedState = STATE.batched_type

Adding a field is one :class:`Field` line plus the rule code that reads and writes it: ``tests/example_game``'s
``test_pig_new_field`` adds one to a copy of the example game and checks that both engines, the snapshots and the
conversions carry it with nothing else edited.

What a field's line says: its dtype; its shape per game, in ints or in the names of sizes the engine gives
(``("players", 10)``); the value of a fresh reference state (``fill``) and of a batched row not yet started (``idle``,
``fill`` unless said); ``length``: the name of the field that holds how much of this one's first axis is used (a pile
kept as an array and a count in the batched state, as a list in the reference state); ``batched_only`` for what the
reference state does not hold (the ply counter, the generator, caches the batched rules keep); ``copied=False`` for
what ``copy_row`` leaves alone (the generator: each row keeps its own dice). A field the reference state keeps in
another form than nested lists of ints (a dict, a set of cells) is declared ``reference=False``: the game converts it
itself, beside the layout's conversions.
"""

from __future__ import annotations

import builtins
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba.extending import overload

from envs.common.game import SnapshotError
from envs.common.jit import NO_REFCOUNT

Shape = tuple[int | str, ...]


@dataclass(frozen=True)
class Field:
    """One field of a game's state (module docstring)."""

    name: str
    dtype: Any
    shape: Shape = ()
    """Per game (the batched state adds the row axis in front): ints, or names of sizes the engine gives."""
    fill: int = 0
    """Every entry of a fresh reference state."""
    idle: int | None = None
    """Every entry of a batched row not started yet (``fill`` when None)."""
    length: str | None = None
    """The field counting the used part of this one's first axis (the reference state holds only that part)."""
    batched_only: bool = False
    """Held by the batched state only (not in the reference state, its snapshots or the conversions)."""
    copied: bool = True
    """Copied by ``copy_row`` and set fresh by the row reset (False for the row's generator: each row keeps its own)."""
    reference: bool = True
    """Converted by the layout (False: the reference state keeps it in a form the game converts itself)."""
    container: Callable[[Any], Any] | None = None
    """The reference state's container for this field, built from nested lists of ints (``bytearray``,
    ``lambda v: array("b", v)``); None: the lists themselves (an int for a scalar)."""
    doc: str = ""


class StateLayout:
    """A game's declared state (module docstring): the batched type, fresh states, copies, conversions, JSON."""

    def __init__(self, type_name: str, module: str, *fields: Field, doc: str = ""):
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"{type_name}: a field is declared twice: {names}")
        for f in fields:
            if f.length is not None and (f.length not in names or not f.shape):
                raise ValueError(f"{type_name}.{f.name}: length {f.length!r} must name a field (and {f.name} a shape)")
        self.fields: tuple[Field, ...] = fields
        self.by_name: dict[str, Field] = {f.name: f for f in fields}
        counted = {f.length for f in fields if f.length is not None}
        self.reference_fields: tuple[Field, ...] = tuple(
            f for f in fields if not f.batched_only and f.name not in counted
        )
        """The reference state's fields (a count of another field's used part is that list's length there)."""
        self.converted: tuple[Field, ...] = tuple(f for f in self.reference_fields if f.reference)
        self.copied: tuple[Field, ...] = tuple(f for f in fields if f.copied)
        batched = NamedTuple(type_name, [(f.name, np.ndarray) for f in fields])  # type: ignore[misc]
        batched.__module__ = module
        batched.__doc__ = doc or f"B games, one row each: {', '.join(names)} (``{module}``'s declaration)."
        self.batched_type: type = batched
        """The batched engine's state: a NamedTuple of arrays, the row axis first."""
        self.reference_class: type | None = None
        """The reference state class built on :meth:`reference_base` (set when the game subclasses it)."""
        self._to_reference = compiled_python(to_reference_source(self), "to_reference", self)
        self._from_reference = compiled_python(from_reference_source(self), "from_reference", self)
        LAYOUTS[batched] = self

    # ----- the batched state ----------------------------------------------------------------------------------
    def row_shape(self, field: Field, sizes: Mapping[str, int]) -> tuple[int, ...]:
        """``field``'s shape per game, its named sizes read from ``sizes``."""
        try:
            return tuple(int(sizes[d]) if isinstance(d, str) else int(d) for d in field.shape)
        except KeyError as missing:
            raise ValueError(f"{field.name}'s shape {field.shape} needs the size {missing}") from None

    def new_state(self, batch: int, sizes: Mapping[str, int] | None = None) -> Any:
        """A batched state of ``batch`` rows, each not started (every entry its field's ``idle``)."""
        sizes = sizes or {}
        arrays = {}
        for f in self.fields:
            value = f.fill if f.idle is None else f.idle
            arrays[f.name] = np.full((batch, *self.row_shape(f, sizes)), value, dtype=f.dtype)
        return self.batched_type(**arrays)

    # ----- the reference state --------------------------------------------------------------------------------
    def reference_base(self) -> type:
        """A base class for the reference engine's state: slots for the reference fields, ``__init__(**sizes)``
        giving each its fresh value (``fill``; a counted field starts empty), ``clone``, equality and a repr.
        The game's class subclasses it (``class PigState(STATE.reference_base()): __slots__ = ()``) and may add
        what its rules need."""
        layout = self

        class ReferenceState:
            __slots__ = tuple(f.name for f in layout.reference_fields)

            def __init_subclass__(cls, **kwargs: Any) -> None:
                super().__init_subclass__(**kwargs)
                layout.reference_class = cls

            __init__ = compiled_python(reference_init_source(layout), "__init__", layout)
            clone = compiled_python(reference_clone_source(layout), "clone", layout)

            def __eq__(self, other: object) -> bool:
                return type(other) is type(self) and all(
                    getattr(self, f.name) == getattr(other, f.name) for f in layout.reference_fields
                )

            __hash__ = None  # type: ignore[assignment]

            def __repr__(self) -> str:
                inside = ", ".join(f"{f.name}={getattr(self, f.name, None)!r}" for f in layout.reference_fields)
                return f"{type(self).__name__}({inside})"

        ReferenceState.__qualname__ = ReferenceState.__name__ = f"{self.batched_type.__name__}Reference"
        return ReferenceState

    def fresh_value(self, field: Field, sizes: Mapping[str, int]) -> Any:
        """``field``'s value in a fresh reference state (what the generated ``__init__`` writes): ``fill`` as an int
        (a bool for a bool field) or nested lists, a counted field empty, through the field's container; for a
        game that writes its reference state class out (its tests compare it with this)."""
        shape = self.row_shape(field, sizes)
        fill: Any = bool(field.fill) if np.dtype(field.dtype) == np.bool_ else int(field.fill)
        value = [] if field.length is not None else (np.full(shape, fill).tolist() if shape else fill)
        return value if field.container is None else field.container(value)

    # ----- the conversions ------------------------------------------------------------------------------------
    def to_reference(self, state: Any, row: int, reference_state: Any) -> None:
        """Row ``row`` of the batched ``state`` into ``reference_state``'s converted fields (ints, nested lists;
        written out field by field from the declaration, :func:`to_reference_source`)."""
        self._to_reference(state, row, reference_state)

    def from_reference(self, reference_state: Any, state: Any, row: int) -> None:
        """``reference_state``'s converted fields into row ``row`` of the batched ``state`` (a counted field's
        unused part zeroed, its count set); batched-only fields are left as they are (written out field by field,
        :func:`from_reference_source`)."""
        self._from_reference(reference_state, state, row)

    # ----- the JSON form --------------------------------------------------------------------------------------
    def to_json(self, reference_state: Any, own: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every reference field, in the declaration's order (hidden information included): a converted field as an
        int or nested lists of ints, a ``reference=False`` one as the game writes it (``own``, by name)."""
        own = own or {}
        missing = [f.name for f in self.reference_fields if not f.reference and f.name not in own]
        if missing:
            raise ValueError(f"to_json: the game writes {missing} itself (reference=False); pass them in own")
        return {
            f.name: to_plain(getattr(reference_state, f.name)) if f.reference else own[f.name]
            for f in self.reference_fields
        }

    def from_json(self, data: Any, reference_state: Any, sizes: Mapping[str, int] | None = None) -> None:
        """Check ``data`` (what :meth:`to_json` wrote) and write it into ``reference_state``: exactly the reference
        fields, each converted one an int (not a bool) within its dtype, or nested lists of them of its shape (a
        counted field: at most its capacity); a ``reference=False`` field is the game's to check and write. Raises
        :class:`SnapshotError` naming the first fault; writes nothing then."""
        sizes = sizes or {}
        if not isinstance(data, dict):
            raise SnapshotError(f"a state must be a JSON object, not {type(data).__name__}")
        wanted = {f.name for f in self.reference_fields}
        if set(data) != wanted:
            missing, extra = sorted(wanted - set(data)), sorted(set(data) - wanted)
            raise SnapshotError(f"state fields: missing {missing}, unknown {extra}")
        values = {}
        for f in self.converted:
            shape = self.row_shape(f, sizes)
            value = checked_values(f, data[f.name], shape, counted=f.length is not None)
            values[f.name] = value if f.container is None else f.container(value)
        for name, value in values.items():
            setattr(reference_state, name, value)


LAYOUTS: dict[type, StateLayout] = {}
"""Every declared layout by its batched type (what :func:`copy_fields` reads when numba compiles a copy)."""


def compiled_python(source: str, name: str, layout: StateLayout) -> Callable[..., Any]:
    """The Python function ``name`` of ``source``, generated from ``layout`` (the reference state's ``__init__`` and
    ``clone``: written out field by field, as fast as hand-written ones)."""
    namespace: dict[str, Any] = {"__builtins__": builtins, "copy_nested": copy_nested, "fields": layout.by_name}
    exec(compile(source, f"<{name} of {layout.batched_type.__name__}>", "exec"), namespace)  # noqa: S102
    return namespace[name]


def reference_init_source(layout: StateLayout) -> str:
    """``__init__(self, **sizes)``: each reference field its fresh value (``fill`` as an int or nested lists, a
    counted field empty, through the field's container), sizes read from ``sizes`` by name."""
    needed = sorted({d for f in layout.reference_fields for d in f.shape if isinstance(d, str)})
    lines = ["def __init__(self, **sizes):"]
    if needed:
        lines.append(f"    missing = [n for n in {needed!r} if n not in sizes]")
        lines.append("    if missing:")
        lines.append("        raise TypeError(f'the state needs the sizes {missing}')")
    for f in layout.reference_fields:
        dims = [repr(int(d)) if not isinstance(d, str) else f"sizes[{d!r}]" for d in f.shape]
        fill = repr(bool(f.fill) if np.dtype(f.dtype) == np.bool_ else int(f.fill))
        if f.length is not None:
            value = "[]"
        elif not dims:
            value = fill
        else:
            value = f"[{fill}] * {dims[-1]}"
            for d in reversed(dims[:-1]):
                value = f"[{value} for _ in range({d})]"
        if f.container is not None:
            value = f"fields[{f.name!r}].container({value})"
        lines.append(f"    self.{f.name} = {value}")
    return "\n".join(lines) + "\n"


def reference_clone_source(layout: StateLayout) -> str:
    """``clone(self)``: an independent copy, each field copied by its rank (an int as it is, a list sliced, a table
    row by row; a container through :func:`copy_nested`)."""
    lines = ["def clone(self):", '    """An independent copy."""', "    copy = object.__new__(type(self))"]
    for f in layout.reference_fields:
        value = f"self.{f.name}"
        rank = len(f.shape)
        if f.container is not None or rank > 3:
            value = f"copy_nested({value})"
        elif rank == 1:
            value = f"{value}[:]"
        elif rank == 2:
            value = f"[r[:] for r in {value}]"
        elif rank == 3:
            value = f"[[x[:] for x in r] for r in {value}]"
        lines.append(f"    copy.{f.name} = {value}")
    lines.append("    return copy")
    return "\n".join(lines) + "\n"


def to_reference_source(layout: StateLayout) -> str:
    """``to_reference(state, row, ref)``: each converted field's row as an int (``item``) or nested lists
    (``tolist``), a counted field cut to its count, through the field's container."""
    lines = ["def to_reference(state, row, ref):"]
    for f in layout.converted:
        values = f"state.{f.name}[row]"
        if f.length is not None:
            values = f"state.{f.name}[row, : state.{f.length}[row]]"
        value = f"{values}.tolist()" if f.shape else f"{values}.item()"
        if f.container is not None:
            value = f"fields[{f.name!r}].container({value})"
        lines.append(f"    ref.{f.name} = {value}")
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


def from_reference_source(layout: StateLayout) -> str:
    """``from_reference(ref, state, row)``: each converted field into the row (a counted field: zeroed, its part
    written, its count set)."""
    lines = ["def from_reference(ref, state, row):"]
    for f in layout.converted:
        if f.length is not None:
            lines.append(f"    value = ref.{f.name}")
            lines.append(f"    state.{f.name}[row] = 0")
            lines.append(f"    state.{f.name}[row, : len(value)] = value")
            lines.append(f"    state.{f.length}[row] = len(value)")
        else:
            lines.append(f"    state.{f.name}[row] = ref.{f.name}")
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


def copy_nested(value: Any) -> Any:
    """A copy of a reference field's value: an int, nested lists, or a container (``bytearray``, ``array``, numpy)."""
    if isinstance(value, list):
        return [copy_nested(v) for v in value]
    if isinstance(value, (bytearray, array, np.ndarray)):
        return value.copy() if isinstance(value, np.ndarray) else value[:]
    return value


def to_plain(value: Any) -> Any:
    """Ints and nested lists of ints from ints, numpy scalars and arrays, tuples, lists, ``bytearray``, ``array``."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (bytearray, array)):
        return list(value)
    if isinstance(value, (list, tuple)):
        if all(type(v) is int for v in value):
            return list(value)  # a flat list of ints as it is (the common case)
        return [to_plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return int(value)


def checked_values(field: Field, value: Any, shape: tuple[int, ...], *, counted: bool = False) -> Any:
    """``value`` as ints / nested lists of ``shape`` within ``field``'s dtype (bools for a bool field), else
    :class:`SnapshotError`; a new list (``counted``: the first axis holds at most its size)."""
    is_bool = np.dtype(field.dtype) == np.bool_
    info = None if is_bool else np.iinfo(field.dtype)
    low, high = (0, 1) if info is None else (int(info.min), int(info.max))
    kind = bool if is_bool else int

    def scalar(v: Any) -> Any:
        if type(v) is not kind or not low <= v <= high:
            wanted = "true or false" if is_bool else f"an int in [{low}, {high}]"
            raise SnapshotError(f"{field.name} must be {wanted}, not {v!r}")
        return v

    def nested(v: Any, dims: tuple[int, ...], first: bool) -> Any:
        if not dims:
            return scalar(v)
        if not isinstance(v, list) or (len(v) > dims[0] if first and counted else len(v) != dims[0]):
            size = f"at most {dims[0]}" if first and counted else f"{dims[0]}"
            raise SnapshotError(f"{field.name} must be a list of {size} entries")
        if len(dims) == 1:
            if all(type(x) is kind for x in v) and (not v or (low <= min(v) and max(v) <= high)):
                return v[:]  # the common case, checked at C speed
            return [scalar(x) for x in v]
        return [nested(x, dims[1:], False) for x in v]

    return nested(value, shape, True)


# ----- copy_row, compiled from the declaration -------------------------------------------------------------------
def copy_fields(st: Any, src: int, dst: int) -> None:
    """Row ``src`` of every copied field (all but ``copied=False`` ones) into row ``dst`` of the same state; in numba
    code, element by element (a slice assignment may allocate, which a function compiled without reference counting
    may not), as if written out field by field."""
    for f in LAYOUTS[type(st)].copied:
        getattr(st, f.name)[dst] = getattr(st, f.name)[src]


def copy_fields_between(src_st: Any, src: int, dst_st: Any, dst: int) -> None:
    """:func:`copy_fields` from row ``src`` of ``src_st`` into row ``dst`` of another state of the same layout."""
    for f in LAYOUTS[type(src_st)].copied:
        getattr(dst_st, f.name)[dst] = getattr(src_st, f.name)[src]


def reset_fields(st: Any, b: int) -> None:
    """Every field of row ``b`` but the ``copied=False`` ones (the generator) to its fresh value (``fill``): a new
    game before its set-up chance; in numba code, element by element."""
    for f in LAYOUTS[type(st)].copied:
        getattr(st, f.name)[b] = f.fill


def reset_source(layout: StateLayout) -> str:
    """The Python source of the compiled reset: one loop nest per field (rank from the declaration)."""
    lines = ["def reset(st, b):"]
    for f in layout.copied:
        lines.append(f"    w = st.{f.name}")
        index = ""
        for k in range(len(f.shape)):
            lines.append("    " * (k + 1) + f"for i{k} in range(w.shape[{k + 1}]):")
            index += f", i{k}"
        lines.append("    " * (len(f.shape) + 1) + f"w[b{index}] = {int(f.fill)}")
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


def copy_source(layout: StateLayout, between: bool) -> str:
    """The Python source of the compiled copy: one loop nest per copied field (rank from the declaration)."""
    head = "def copy(src_st, src, dst_st, dst):" if between else "def copy(st, src, dst):"
    lines = [head]
    for f in layout.copied:
        rank = len(f.shape)
        reader, writer = ("src_st", "dst_st") if between else ("st", "st")
        lines.append(f"    a = {reader}.{f.name}")
        lines.append(f"    w = {writer}.{f.name}")
        index = ""
        for k in range(rank):
            lines.append("    " * (k + 1) + f"for i{k} in range(a.shape[{k + 1}]):")
            index += f", i{k}"
        lines.append("    " * (rank + 1) + f"w[dst{index}] = a[src{index}]")
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines) + "\n"


def compiled(source: str, name: str, layout: StateLayout) -> Callable[..., None]:
    """The function ``name`` of ``source`` (generated from ``layout``'s declaration), the implementation numba compiles
    for :func:`copy_fields`, :func:`copy_fields_between` or :func:`reset_fields` on ``layout``'s state: a function of
    its own, without reference counting, not inlined (numba 0.68.1 silently drops statements of a caller that
    inlines both such an overload and an ``inline_jit`` helper with a branch: their blocks' labels collide;
    ``tests/test_state_layout.py`` keeps the case)."""
    namespace: dict[str, Any] = {"__builtins__": builtins}
    exec(compile(source, f"<{name} of {layout.batched_type.__name__}>", "exec"), namespace)  # noqa: S102
    return namespace[name]


def layout_of_type(numba_type: Any) -> StateLayout | None:
    """The layout whose batched type numba typed as ``numba_type`` (None for anything else)."""
    return LAYOUTS.get(getattr(numba_type, "instance_class", None))  # type: ignore[arg-type]


# The overloads' parameters carry no annotations: numba compares their signatures with the implementations'.
@overload(copy_fields, jit_options=NO_REFCOUNT)
def _copy_fields_compiled(st, src, dst):
    layout = layout_of_type(st)
    return None if layout is None else compiled(copy_source(layout, between=False), "copy", layout)


@overload(copy_fields_between, jit_options=NO_REFCOUNT)
def _copy_fields_between_compiled(src_st, src, dst_st, dst):
    layout = layout_of_type(src_st)
    if layout is None or layout_of_type(dst_st) is not layout:
        return None
    return compiled(copy_source(layout, between=True), "copy", layout)


@overload(reset_fields, jit_options=NO_REFCOUNT)
def _reset_fields_compiled(st, b):
    layout = layout_of_type(st)
    return None if layout is None else compiled(reset_source(layout), "reset", layout)


__all__: Sequence[str] = ("Field", "StateLayout", "copy_fields", "copy_fields_between", "reset_fields", "LAYOUTS")
