"""Bestiarium's rule engine (pure: no PettingZoo). The rules as implemented are in ``RULES.md``.

Seats: 0 = Black (moves first), 1 = White. Cell colours: 0 empty, 1 Black, 2 White (``seat + 1``).

Creatures are tracked incrementally. A legal placement touches at most one friendly creature and a growth
stone touches only the growing creature, so creatures never merge; eating removes whole creatures, so they
never split. A creature is therefore only ever born (a lone stone), grown by one stone, or removed, and the
engine keeps per cell a creature id and per creature its cell list, with its shape id cached until it grows.
Per seat, a byte per cell says whether that seat may place there (empty and touching at most one of its
creatures); only the cells around a change are recomputed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.bestiarium.actions import GROW, PLACE, ActionCodec
from envs.common.game import TERMINAL, Game, IllegalActionError, pairwise_rewards
from envs.common.hexgrid import HexGrid, transforms
from envs.common.options import Option, OptionTable

BOARD_SIZES = (5, 6, 7)
SHAPE_EQUIVALENCES = ("free", "one_sided", "fixed")
OPTIONS = OptionTable(
    Option(
        "board_size",
        int,
        6,
        "Cells a side of the hexhex board (61, 91, 127 cells).",
        choices=BOARD_SIZES,
        label="board side",
    ),
    Option(
        "shape_equivalence",
        str,
        "free",
        'When two creatures have the same shape: "free" up to rotation and reflection (the 12 symmetries of the '
        'hex grid), "one_sided" up to rotation, "fixed" up to translation only.',
        choices=SHAPE_EQUIVALENCES,
        label="same shape",
    ),
)
"""Bestiarium's options (:mod:`envs.common.options`): what the engine checks, the docs and the forms show."""
PLY_CAP_PER_CELL = 20
"""The ply cap is ``PLY_CAP_PER_CELL * cells`` (1820 plies on side 6; random games take 0.7 to 2 x cells)."""
OBSERVATION_PLANES = 56
"""The observation's planes (``observation.py``: 10 stone planes, then 46 score planes), each ``(2R+1, 2R+1)``."""
GLOBAL_PLANES = 38
"""The observation's last 38 planes are constants (the scoring cascade: ``observation.NUM_GLOBAL_PLANES``)."""

_SHAPE_CACHE_LIMIT = 500_000
_PASS = b"\x01"
_NO_PASS = b"\x00"
# (radius, group) -> {translation-normalised cell key: shape id}; shape ids are shared per group.
_SHAPE_KEYS: dict[tuple[int, str], dict[tuple[int, ...], int]] = {}
_SHAPE_IDS: dict[str, dict[tuple[tuple[int, int], ...], int]] = {}


class BestiariumState:
    """A mutable Bestiarium position. Use :meth:`BestiariumGame.clone` (or :meth:`clone`) to branch.

    Its turn books (``to_move``, ``phase``, ``chain``, ``passes``, ``first_passer``, ``plies``, ``over``) are the
    reference fields of the state's declaration (``kernels.STATE``). The class is written out rather than built on
    ``STATE.reference_base()``: the board is a bytearray, the creatures are numbered in order of birth with a dict of
    their cells and a shape cache (the batched state names them by slot), legality is two bytearrays, and
    :meth:`clone`, written field by field, is on the search's hot path."""

    __slots__ = (
        "color",
        "cid",
        "members",
        "shape",
        "next_id",
        "legal",
        "to_move",
        "phase",
        "chain",
        "passes",
        "first_passer",
        "plies",
        "over",
    )

    def __init__(self, num_cells: int):
        self.color = bytearray(num_cells)
        """Per cell: 0 empty, 1 Black, 2 White."""
        self.cid: list[int] = [-1] * num_cells
        """Per cell: the id of the creature holding it, -1 if empty."""
        self.members: dict[int, list[int]] = {}
        """Creature id -> its cells (order of arrival)."""
        self.shape: dict[int, int] = {}
        """Creature id -> cached shape id (absent = not computed since it last grew)."""
        self.next_id = 0
        self.legal = [bytearray(num_cells), bytearray(num_cells)]
        """Per seat, per cell: 1 if the seat may place there."""
        self.to_move = 0
        self.phase = PLACE
        self.chain = -1
        """Creature id of the creature that must grow (grow phase), else -1."""
        self.passes = 0
        """Consecutive passes just made (2 ends the game)."""
        self.first_passer = -1
        """Seat that made the first of the pending/final consecutive passes, else -1."""
        self.plies = 0
        """Placements + growths + passes so far."""
        self.over = False

    def clone(self) -> BestiariumState:
        """An independent copy."""
        s = BestiariumState.__new__(BestiariumState)
        s.color = bytearray(self.color)
        s.cid = self.cid[:]
        s.members = {k: v[:] for k, v in self.members.items()}
        s.shape = dict(self.shape)
        s.next_id = self.next_id
        s.legal = [bytearray(self.legal[0]), bytearray(self.legal[1])]
        s.to_move = self.to_move
        s.phase = self.phase
        s.chain = self.chain
        s.passes = self.passes
        s.first_passer = self.first_passer
        s.plies = self.plies
        s.over = self.over
        return s


class ShapeNames:
    """Names the shapes of sets of cells of one board up to a shape equivalence: :meth:`shape_id` is an int per
    shape, shared by every board of the equivalence (cached per board radius and equivalence)."""

    def __init__(self, grid: HexGrid, shape_equivalence: str):
        radius = grid.radius
        # Shape keys: a stride wide enough that translation-normalised offsets decode uniquely.
        stride = 4 * radius + 3
        self._skey = tuple((r + radius) * stride + (q + radius) for q, r in grid.coords)
        self._shape_keys = _SHAPE_KEYS.setdefault((radius, shape_equivalence), {})
        self._shape_ids = _SHAPE_IDS.setdefault(shape_equivalence, {})
        self._cell_images = tuple(
            (tuple(f(c)[0] for c in grid.coords), tuple(f(c)[1] for c in grid.coords))
            for f in transforms(shape_equivalence)
        )
        """Per symmetry of the shape equivalence: every cell's image (q per cell, r per cell)."""

    def shape_id(self, cells: list[int]) -> int:
        """An int naming the shape of a set of cells up to the configured equivalence (cached)."""
        skey = self._skey
        vals = sorted([skey[c] for c in cells])
        m = vals[0]
        key = tuple([v - m for v in vals])
        sid = self._shape_keys.get(key)
        if sid is None:
            form = self.canonical_shape(cells)
            ids = self._shape_ids
            sid = ids.get(form)
            if sid is None:
                sid = ids[form] = len(ids)
            if len(self._shape_keys) >= _SHAPE_CACHE_LIMIT:
                self._shape_keys.clear()
            self._shape_keys[key] = sid
        return sid

    def canonical_shape(self, cells: list[int]) -> tuple[tuple[int, int], ...]:
        """``hexgrid.canonical_shape`` of the cells (the same tuple), from each symmetry's image of every cell
        computed once per board (a cache miss of :meth:`shape_id` cost about 0.5 ms through the symmetry maps)."""
        best = None
        for qs, rs in self._cell_images:
            q = [qs[c] for c in cells]
            r = [rs[c] for c in cells]
            mq = min(q)
            mr = min(r)
            form = sorted(zip([v - mq for v in q], [v - mr for v in r]))
            if best is None or form < best:
                best = form
        return tuple(best) if best is not None else ()


class BestiariumGame(Game[BestiariumState]):
    """Bestiarium for two players on a hexhex board of ``board_size`` cells a side.

    Options (:data:`OPTIONS`: their defaults and allowed values): ``board_size``, the board's side;
    ``shape_equivalence``, whether shapes are equal up to translation and the 12 symmetries of the hex grid
    (rotations and reflections), the 6 rotations only, or translation only.
    """

    name = "bestiarium"
    num_players = 2
    observation_dtype = np.float32

    def __init__(self, **options: Any):
        """The game with ``options`` (:data:`OPTIONS`)."""
        o = OPTIONS.check(options, self.name)
        self.board_size = size = o["board_size"]
        self.shape_equivalence = shape_equivalence = o["shape_equivalence"]
        self.grid = HexGrid(size - 1)
        grid = self.grid
        self.num_cells = n = grid.num_cells
        self.nbrs: tuple[tuple[int, ...], ...] = grid.neighbor_lists
        self.codec = ActionCodec(grid)
        self.num_actions = n + 1
        self.pass_action = n
        side = grid.square_shape[0]
        self.observation_shape = (OBSERVATION_PLANES, side, side)
        self.global_planes = GLOBAL_PLANES
        """The observation's last 38 planes are constants (the scoring cascade): networks may read them as a
        vector (``training.networks``)."""
        self.max_game_length = PLY_CAP_PER_CELL * n
        self.shapes = ShapeNames(grid, shape_equivalence)
        self._empty_legal = bytes([1]) * n
        self._single_shape_max = 1 if shape_equivalence == "fixed" else 2
        """Sizes up to this have a single shape (one cell; two cells unless rotations are told apart)."""

    # ----- options and set-up ------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """The options (JSON-safe)."""
        return {"board_size": self.board_size, "shape_equivalence": self.shape_equivalence}

    def initial_state(self, rng: np.random.Generator | None = None) -> BestiariumState:
        """The empty board, Black to place (no chance in this game)."""
        s = BestiariumState(self.num_cells)
        s.legal = [bytearray(self._empty_legal), bytearray(self._empty_legal)]
        return s

    # ----- shapes and creatures --------------------------------------------------------------------
    def shape_id(self, cells: list[int]) -> int:
        """An int naming the shape of a set of cells up to the configured equivalence (:class:`ShapeNames`)."""
        return self.shapes.shape_id(cells)

    def _shape_of(self, state: BestiariumState, c: int) -> int:
        sid = state.shape.get(c)
        if sid is None:
            sid = state.shape[c] = self.shape_id(state.members[c])
        return sid

    def creatures(self, state: BestiariumState, seat: int) -> list[list[int]]:
        """The creatures of ``seat`` as sorted cell lists, sorted."""
        col = seat + 1
        out = [sorted(cells) for cells in state.members.values() if state.color[cells[0]] == col]
        return sorted(out)

    def same_shape(self, a: list[int], b: list[int]) -> bool:
        """Whether two cell sets have the same shape under the configured equivalence."""
        return len(a) == len(b) and self.shape_id(a) == self.shape_id(b)

    def legal_at(self, state: BestiariumState, j: int, col: int) -> int:
        """1 if empty cell ``j`` touches at most one creature of colour ``col``."""
        color = state.color
        cid = state.cid
        found = -1
        for k in self.nbrs[j]:
            if color[k] == col:
                c = cid[k]
                if found < 0:
                    found = c
                elif c != found:
                    return 0
        return 1

    def _friendly_creature(self, state: BestiariumState, x: int, col: int) -> int:
        """The creature of colour ``col`` next to cell ``x`` (the first found), or -1."""
        color = state.color
        for k in self.nbrs[x]:
            if color[k] == col:
                return state.cid[k]
        return -1

    def _add_stone(self, state: BestiariumState, x: int, seat: int, c: int) -> None:
        """Put a stone of ``seat`` on empty ``x`` into creature ``c`` and refresh legality around it."""
        col = seat + 1
        state.color[x] = col
        state.cid[x] = c
        state.members[c].append(x)
        state.shape.pop(c, None)
        state.legal[0][x] = 0
        state.legal[1][x] = 0
        # Only the mover's creatures changed, so only the mover's legality around x can change.
        color = state.color
        leg = state.legal[seat]
        for j in self.nbrs[x]:
            if color[j] == 0 and leg[j]:
                leg[j] = self.legal_at(state, j, col)

    def _eat_and_continue(self, state: BestiariumState, seat: int, c: int) -> None:
        """After C grew (placement or growth): eat if it can and enter the grow phase, else end the turn.

        Rulebook: "Remove from the board all enemy creatures adjacent to the creature containing the newly
        placed stone [...] provided they have its same size and a different shape from that creature. Then add
        one stone to that creature [...]. If a creature cannot grow, it cannot eat."
        """
        members = state.members
        cells = members[c]
        size = len(cells)
        if size <= self._single_shape_max:  # every creature of this size has C's shape: nothing to eat
            state.phase = PLACE
            state.chain = -1
            state.to_move = 1 - seat
            return
        color = state.color
        cid = state.cid
        nbrs = self.nbrs
        enemy = 2 - seat
        cand = set()
        for x in cells:
            for j in nbrs[x]:
                if color[j] == enemy:
                    e = cid[j]
                    if len(members[e]) == size:
                        cand.add(e)
        eaten: list[int] = []
        if cand:
            own = self._shape_of(state, c)
            eaten = [e for e in cand if self._shape_of(state, e) != own]
        if eaten and self._can_grow_after(state, seat, c, eaten):
            legal0, legal1 = state.legal
            touched = set()
            for e in eaten:
                for x in members.pop(e):
                    color[x] = 0
                    cid[x] = -1
                    touched.add(x)
                    touched.update(nbrs[x])
                state.shape.pop(e, None)
            for j in touched:
                if color[j] == 0:
                    legal0[j] = self.legal_at(state, j, 1)
                    legal1[j] = self.legal_at(state, j, 2)
            state.phase = GROW
            state.chain = c
            return
        state.phase = PLACE
        state.chain = -1
        state.to_move = 1 - seat

    def _can_grow_after(self, state: BestiariumState, seat: int, c: int, eaten: list[int]) -> bool:
        """Whether C would have a growth cell once ``eaten`` were removed (freed cells included)."""
        color = state.color
        cid = state.cid
        nbrs = self.nbrs
        leg = state.legal[seat]
        own = seat + 1
        gone = set(eaten)
        for x in state.members[c]:
            for j in nbrs[x]:
                cj = color[j]
                if cj == 0:
                    if leg[j]:
                        return True
                elif cj != own and cid[j] in gone and all(color[k] != own or cid[k] == c for k in nbrs[j]):
                    return True
        return False

    def growth_cells(self, state: BestiariumState) -> list[int]:
        """Cells where the creature that must grow may take its stone (empty, next to C, no other friend)."""
        if state.phase != GROW:
            return []
        leg = state.legal[state.to_move]
        color = state.color
        out = set()
        for x in state.members[state.chain]:
            for j in self.nbrs[x]:
                if color[j] == 0 and leg[j]:
                    out.add(j)
        return sorted(out)

    # ----- the state machine -------------------------------------------------------------------
    def current_player(self, state: BestiariumState) -> int:
        """Seat to act (the same seat for a whole eating chain), or TERMINAL."""
        return TERMINAL if state.over else state.to_move

    def is_truncated(self, state: BestiariumState) -> bool:
        """True once the ply cap is reached in an unfinished game."""
        return not state.over and state.plies >= self.max_game_length

    def legal_mask(self, state: BestiariumState) -> np.ndarray:
        """int8 mask over cells + pass (a fresh, writable array)."""
        if state.over or state.phase == GROW:
            mask = np.zeros(self.num_actions, dtype=np.int8)
            if not state.over:
                mask[self.growth_cells(state)] = 1
            return mask
        leg = state.legal[state.to_move]
        # the placement bytes and the pass byte in one bytes concatenation (numpy's per-call costs dominate here)
        return np.frombuffer(leg + (_NO_PASS if 1 in leg else _PASS), dtype=np.int8)

    def legal_actions(self, state: BestiariumState) -> list[int]:
        """Legal action ids, ascending."""
        if state.over:
            return []
        if state.phase == GROW:
            return self.growth_cells(state)
        leg = state.legal[state.to_move]
        out = [i for i, v in enumerate(leg) if v]
        return out if out else [self.pass_action]

    def apply(self, state: BestiariumState, action: Any, rng: np.random.Generator | None = None) -> None:
        """Place, grow or pass for the player to move (validated before any change)."""
        a = self.check_action_range(action)
        if state.over:
            raise IllegalActionError(f"action {a}: the game is over")
        seat = state.to_move
        col = seat + 1
        n = self.num_cells
        if state.phase == GROW:
            c = state.chain
            if a == n:
                raise IllegalActionError(f"action {a} (pass): the creature that ate must grow first")
            if state.color[a]:
                raise IllegalActionError(f"action {a} ({self.codec.names[a]}): growth cell is occupied")
            if not any(state.cid[j] == c for j in self.nbrs[a]):
                raise IllegalActionError(f"action {a} ({self.codec.names[a]}): not next to the growing creature")
            if not state.legal[seat][a]:
                raise IllegalActionError(
                    f"action {a} ({self.codec.names[a]}): growing there would merge with another friendly creature"
                )
            self._add_stone(state, a, seat, c)
            state.plies += 1
            self._eat_and_continue(state, seat, c)
            return
        if a == n:
            # Rulebook: "If you cannot place a stone, pass your turn; otherwise, passing is not allowed."
            if any(state.legal[seat]):
                raise IllegalActionError(f"action {a} (pass): passing is only allowed with no legal placement")
            state.plies += 1
            state.passes += 1
            if state.passes == 1:
                state.first_passer = seat
            else:
                state.over = True
            state.to_move = 1 - seat
            return
        if not state.legal[seat][a]:
            why = "occupied" if state.color[a] else "would merge two friendly creatures"
            raise IllegalActionError(f"action {a} ({self.codec.names[a]}): {why}")
        # Rulebook: "Place a stone of your color on an empty cell without merging friendly creatures."
        c = self._friendly_creature(state, a, col)
        if c < 0:
            c = state.next_id
            state.next_id += 1
            state.members[c] = []
        self._add_stone(state, a, seat, c)
        state.plies += 1
        state.passes = 0
        state.first_passer = -1
        self._eat_and_continue(state, seat, c)

    # ----- scoring -----------------------------------------------------------------------------
    def size_values(self, state: BestiariumState, seat: int) -> dict[int, int]:
        """Per creature size present, the value the cascade compares: +k*s^2 for a fauna (k >= 2 distinct
        shapes among the n creatures of size s), else -n*s^2 for a species (one shape, lone creature included).
        """
        col = seat + 1
        by_size: dict[int, list[int]] = {}
        for c, cells in state.members.items():
            if state.color[cells[0]] == col:
                by_size.setdefault(len(cells), []).append(self._shape_of(state, c))
        out = {}
        for s, shapes in by_size.items():
            k = len(set(shapes))
            out[s] = k * s * s if k >= 2 else -len(shapes) * s * s
        return out

    def cascade(self, state: BestiariumState) -> list[tuple[int, int, int]]:
        """``(size, value of Black, value of White)`` from the largest size either player has down to 1."""
        v = [self.size_values(state, 0), self.size_values(state, 1)]
        top = max(list(v[0]) + list(v[1]) + [0])
        return [(s, v[0].get(s, 0), v[1].get(s, 0)) for s in range(top, 0, -1)]

    def rank_keys(self, state: BestiariumState) -> list[tuple[int, ...]]:
        """Per seat: the cascade values (largest size first) then 1 for the first of the final passes."""
        rows = self.cascade(state)
        return [tuple(row[1 + seat] for row in rows) + (1 if state.first_passer == seat else 0,) for seat in range(2)]

    def winner(self, state: BestiariumState) -> int:
        """The winning seat of a finished game (there is never a draw), else -1."""
        if not state.over:
            return -1
        k = self.rank_keys(state)
        return 0 if k[0] > k[1] else 1

    def returns(self, state: BestiariumState) -> np.ndarray:
        """+1 / -1 once the game is over (zero-sum), zeros while live or truncated."""
        if not state.over:
            return np.zeros(2, dtype=np.float64)
        return pairwise_rewards(self.rank_keys(state))

    def scores(self, state: BestiariumState) -> np.ndarray:
        """Per seat, the cascade value at the first size where the players differ (0, 0 if none does)."""
        for _, b, w in self.cascade(state):
            if b != w:
                return np.array([b, w], dtype=np.float64)
        return np.zeros(2, dtype=np.float64)

    def clone(self, state: BestiariumState) -> BestiariumState:
        """An independent copy."""
        return state.clone()

    def blank_state(self) -> BestiariumState:
        """An empty board, Black to place (to be filled in by snapshots and text boards)."""
        return BestiariumState(self.num_cells)

    # ----- notation ------------------------------------------------------------------------------
    has_symmetries = True
    """The 12 rotations and reflections of the board hold in every position (``observation.symmetries``)."""

    def action_to_str(self, state: BestiariumState, action: int) -> str:
        """``e5`` (place), ``+e5`` (grow) or ``pass``."""
        return self.codec.to_str(state, self.check_action_range(action))

    def str_to_action(self, state: BestiariumState, text: str) -> int:
        """Parse ``e5`` / ``+e5`` / ``pass`` (or a plain action id); legality is checked by ``apply``."""
        a = self.codec.parse(state, text)
        if a is None:
            t = text.strip()
            if t.isdigit() and int(t) < self.num_actions:
                return int(t)
            raise IllegalActionError(f"{text!r} is not Bestiarium notation (e.g. 'e5', '+e5', 'pass')")
        return a
