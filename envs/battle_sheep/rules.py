"""Battle Sheep rule engine: pasture building, stack placement, split-and-slide moves, scoring.

Pure rules over a mutable :class:`BattleSheepState`; no PettingZoo inside. The pasture lies on a hexagonal canvas
whose frame follows it: after every tile placement the pasture is translated so that its smallest enclosing
hexagon is centred (RULES.md, "The frame"; radius per player count and the smallest allowed: "Canvas size").
Cells are indexed as in :class:`HexGrid`.
"""

from __future__ import annotations

import functools
import itertools
from array import array
from typing import Any, NamedTuple

import numpy as np

from envs.battle_sheep import kernels
from envs.battle_sheep.actions import (
    BUILD,
    EMPTY,
    MAX_MOVE,
    MOVE,
    NO_PASTURE,
    OVER,
    PLACE,
    SEAT_LETTERS,
    SHEEP_PER_PLAYER,
    TILES_PER_PLAYER,
    ActionCodec,
)
from envs.battle_sheep.kernels import GridTables, reference_tables
from envs.common.game import (
    TERMINAL,
    ConfigError,
    Game,
    IllegalActionError,
    check_int_range,
    pairwise_rewards,
)
from envs.common.hexgrid import DIRECTION_NAMES, HexGrid, hexagon_around
from envs.common.options import Option, OptionTable

DEFAULT_CANVAS_RADIUS = {2: 11, 3: 13, 4: 15}
"""The smallest canvases on which random builds lose no placement to the edge in at least 99.9% of games (RULES.md)."""
MIN_CANVAS_RADIUS = {2: 6, 3: 7, 4: 7}
"""The smallest canvas per player count: the smallest radius on which ``python -m
lab.stuck_search`` found no build of that player count stuck (a player to place a tile and no room
for it), plus one as a margin, since no proof covers it (RULES.md, "Canvas size")."""
MAX_CANVAS_RADIUS = 16
NUM_DERIVED_PLANES = 9
"""Observation planes derived from the others (RULES.md): free neighbours, slide destinations per direction,
where the observer / the others can slide to."""

OPTIONS = OptionTable(
    Option("num_players", int, 2, "Players, in clockwise turn order.", low=2, high=4, label="players"),
    Option(
        "pasture",
        str,
        "build",
        '"build": the players build the pasture from their 4 tiles each (the rulebook); "random": the env lays '
        "a legal random pasture from the same tiles (seeded) and the game starts with stack placement.",
        choices=("build", "random"),
    ),
    Option(
        "end_rule",
        str,
        "battle_sheep",
        '"battle_sheep": blocked players are skipped, the game ends when nobody can move, most pastures wins '
        '(tie: largest herd; still tied: draw); "splits" (2 players only): the first player unable to move loses.',
        choices=("battle_sheep", "splits"),
        label="end rule",
    ),
    Option(
        "canvas_radius",
        int,
        None,
        "Radius of the hexagonal canvas the pasture is built on, at least 6, 7, 7 for 2, 3, 4 players; its frame "
        "follows the pasture (RULES.md, 'Canvas size').",
        low=min(MIN_CANVAS_RADIUS.values()),
        high=MAX_CANVAS_RADIUS,
        default_text="11, 13, 15 for 2, 3, 4 players",
        in_form=False,
    ),
)
"""Battle Sheep's options (:mod:`envs.common.options`): what the engine checks, the docs and the forms show."""

_KERNELS_LOADED = False


def _load_kernels(game: BattleSheepGame) -> None:
    """Compile (first run) or load from numba's cache the observation and mask kernels once per process, when the
    first game is built, so that a game's first step is not the one that waits for them."""
    global _KERNELS_LOADED
    if not _KERNELS_LOADED:
        state = BattleSheepState(game.num_players, game.grid.num_cells)
        game.observation(state, 0)
        game.legal_mask(state)
        game.outer_border(state)
        _KERNELS_LOADED = True


@functools.lru_cache(maxsize=4096)
def _hexagon_centre(extent: tuple[int, int, int, int, int, int]) -> tuple[int, int]:
    """The centre of :func:`hexagon_around` an extent (the same few extents recur in every build: kept)."""
    return hexagon_around(*extent)[0]


def arrays_of(state: BattleSheepState) -> tuple[np.ndarray, np.ndarray]:
    """``state.cells`` and ``state.heights`` as int8 numpy arrays sharing their memory (for the compiled kernels),
    kept on the state: made again only when those arrays were replaced (or the state was copied or unpickled,
    which copies the views apart from the arrays)."""
    views = state._views
    if views is not None:
        cells, heights = views[0].base, views[1].base
        if cells is not None and heights is not None and cells.obj is state.cells and heights.obj is state.heights:
            return views
    views = state._views = (np.frombuffer(state.cells, dtype=np.int8), np.frombuffer(state.heights, dtype=np.int8))
    return views


class ViewTables(NamedTuple):
    """What the observation reads besides the kernels' tables (``BattleSheepGame.observation_tables``), made once
    per game (``BattleSheepGame.view``, :func:`view_tables`)."""

    planes: tuple[int, int]
    """The observation's (planes, squares) before it is shaped (C, H, W)."""
    template: np.ndarray
    """(planes, squares) float32: the observation's constant part (plane 0: the canvas)."""
    tiles_left: dict[tuple[int, ...], np.ndarray]
    """Every tiles-left count as the int8 array the observation kernel reads (made once, not per observation)."""


def view_tables(tables: GridTables, num_channels: int, num_players: int, square_shape: tuple[int, int]) -> ViewTables:
    """The :class:`ViewTables` of a game with these canvas tables, planes and players."""
    squares = square_shape[0] * square_shape[1]
    template = np.zeros((num_channels, squares), np.float32)
    template[0, tables.square] = 1.0
    return ViewTables(
        planes=(num_channels, squares),
        template=template,
        tiles_left={
            key: np.array(key, dtype=np.int8)
            for key in itertools.product(range(TILES_PER_PLAYER + 1), repeat=num_players)
        },
    )


class BattleSheepState:
    """A Battle Sheep position. Mutable; copy with :meth:`clone`.

    ``cells`` and ``heights`` are ``array('b')`` (signed bytes): they read and write like lists of
    ints, and the compiled kernels (``kernels.py``, ``observation.py``) see them as numpy arrays without a copy.

    Its fields are the reference fields of the declaration (``kernels.STATE``; the fresh values its ``fill``, tested
    equal), plus the pasture's books (``num_pasture``, ``pasture``, ``extent``, ``border``) and the caches the rules
    keep (the tile arrays, the moves, the numpy views). The class is written out rather than built on
    ``STATE.reference_base()``: its ``clone`` copies the byte arrays by slicing, shares the moves cache and drops
    the views, and it is what the reference engine's speed (``barnyard bench``) measures.
    """

    __slots__ = (
        "phase",
        "to_move",
        "cells",
        "heights",
        "stacks",
        "tiles_left",
        "stacks_placed",
        "can_move",
        "num_pasture",
        "pasture",
        "extent",
        "plies",
        "last_action",
        "border",
        "tile_blocked",
        "tile_touch",
        "_moves",
        "_views",
    )

    def __init__(self, num_players: int, num_cells: int):
        self.phase = BUILD
        self.to_move = 0
        self.cells = array("b", [NO_PASTURE]) * num_cells
        self.heights = array("b", [0]) * num_cells
        self.stacks: list[list[int]] = [[] for _ in range(num_players)]
        """Cells occupied by each seat, in the order they were first occupied."""
        self.tiles_left = [TILES_PER_PLAYER] * num_players
        self.stacks_placed = 0
        self.can_move = [True] * num_players
        """False once a seat has no legal move: cells only ever fill up, so it never moves again."""
        self.num_pasture = 0
        self.pasture: list[int] = []
        """The pasture's cells (any order; kept for re-centring the frame during the build)."""
        self.extent: tuple[int, int, int, int, int, int] | None = None
        """While building: the pasture's (min q, max q, min r, max r, min s, max s), None if not known."""
        self.plies = 0
        self.last_action = -1
        self.border: tuple[int, ...] = ()
        """Pasture cells on the outside border (set once the pasture is complete)."""
        self.tile_blocked: np.ndarray | None = None
        self.tile_touch: np.ndarray | None = None
        """While building, per on-canvas tile: overlaps the pasture / shares an edge with it (kept up to date
        by each placement, dropped after the build phase)."""
        self._moves: list[tuple[int, int, int, int]] | None = None
        """Cache of the mover's legal moves ``(cell, direction, destination, max_count)``."""
        self._views: tuple[np.ndarray, np.ndarray] | None = None
        """numpy views of ``cells`` and ``heights`` for the compiled kernels (:func:`arrays_of`)."""

    def clone(self) -> BattleSheepState:
        other = BattleSheepState.__new__(BattleSheepState)
        other.phase = self.phase
        other.to_move = self.to_move
        other.cells = self.cells[:]
        other.heights = self.heights[:]
        other.stacks = [s[:] for s in self.stacks]
        other.tiles_left = self.tiles_left[:]
        other.stacks_placed = self.stacks_placed
        other.can_move = self.can_move[:]
        other.num_pasture = self.num_pasture
        other.pasture = self.pasture[:]
        other.extent = self.extent
        other.plies = self.plies
        other.last_action = self.last_action
        other.border = self.border
        other.tile_blocked = None if self.tile_blocked is None else self.tile_blocked.copy()
        other.tile_touch = None if self.tile_touch is None else self.tile_touch.copy()
        other._moves = self._moves
        other._views = None
        return other


def tile_geometry(grid: HexGrid) -> tuple[list[tuple[int, ...] | None], np.ndarray, np.ndarray, np.ndarray]:
    """The tiles of a hex grid: ``(tile_cells, tile_ids, tile_table, tile_ring)``.

    ``tile_cells[3a + o]``: the 4 cells of the tile with anchor ``a`` and orientation ``o``, or None where it
    leaves the grid; ``tile_ids``: the ids of the tiles on the grid; ``tile_table[m]`` / ``tile_ring[m]``: the
    cells of tile ``tile_ids[m]`` / the (up to 10) cells around it, padded with the sentinel ``num_cells``
    (never pasture), for vectorised legality checks.
    """
    n = grid.num_cells
    tile_cells: list[tuple[int, ...] | None] = []
    for a in range(n):
        for o in range(3):
            cells = [a if d is None else int(grid.neighbors[a, d]) for d in (None, o, (o - 1) % 6, (o + 1) % 6)]
            tile_cells.append(tuple(cells) if min(cells) >= 0 else None)
    tile_ids = np.array([i for i, t in enumerate(tile_cells) if t is not None], dtype=np.int64)
    tile_table = np.array([tile_cells[a] for a in tile_ids], dtype=np.int64)
    rings = []
    for a in tile_ids:
        inside = set(tile_cells[a])
        around = sorted({j for c in inside for j in grid.neighbor_lists[c]} - inside)
        rings.append(around + [n] * (10 - len(around)))
    return tile_cells, tile_ids, tile_table, np.array(rings, dtype=np.int64)


class PastureBuild:
    """The build phase's geometry on one canvas: the tiles (``tile_cells[3a + o]``: the 4 cells of the tile with
    anchor ``a`` and orientation ``o``, None where it leaves the canvas; see :func:`tile_geometry`), which of them a
    position allows (kept incrementally on the state), and the frame (RULES.md, "The frame"): after every tile
    placement the pasture is translated so that its smallest enclosing hexagon is centred on the canvas, and tile ids
    are relative to that frame. Keeps the extents of tiles and the cell maps of translations it has met."""

    def __init__(self, grid: HexGrid):
        self.grid = grid
        n = grid.num_cells
        self.center = grid.index[(0, 0)]
        self.tile_cells, self.tile_ids, self.tile_table, self.tile_ring = tile_geometry(grid)
        self.tile_on_canvas = np.array([t is not None for t in self.tile_cells])
        in_tile: list[list[int]] = [[] for _ in range(n + 1)]
        in_ring: list[list[int]] = [[] for _ in range(n + 1)]
        for m, (cells, ring) in enumerate(zip(self.tile_table, self.tile_ring)):
            for c in cells:
                in_tile[c].append(m)
            for c in ring:
                in_ring[c].append(m)
        self.tiles_covering = [np.array(t, dtype=np.int64) for t in in_tile]
        self.tiles_around = [np.array(t, dtype=np.int64) for t in in_ring]
        """Per cell, the on-canvas tiles that contain it / that it borders (for incremental tile legality)."""
        self._tile_extents: dict[int, tuple[int, int, int, int, int, int]] = {}
        self._shifts: dict[tuple[int, int], list[int | None]] = {}

    def legal_tiles(self, state: BattleSheepState) -> np.ndarray:
        """Boolean vector over tile actions: on canvas, no overlap, sharing an edge with the pasture."""
        ok = np.zeros(len(self.tile_cells), dtype=bool)
        if state.num_pasture == 0:
            ok[self.center * 3 : self.center * 3 + 3] = self.tile_on_canvas[self.center * 3 : self.center * 3 + 3]
            return ok
        if state.tile_blocked is None:
            self.init_tile_arrays(state)
        ok[self.tile_ids[state.tile_touch & ~state.tile_blocked]] = True
        return ok

    def init_tile_arrays(self, state: BattleSheepState) -> None:
        """Build the incremental tile-legality arrays from scratch (new game, or a state read from JSON/text)."""
        if state.num_pasture == 0:
            state.tile_blocked = np.zeros(len(self.tile_ids), dtype=bool)
            state.tile_touch = np.zeros(len(self.tile_ids), dtype=bool)
            return
        state.tile_blocked = np.zeros(len(self.tile_ids), dtype=bool)
        state.tile_touch = np.zeros(len(self.tile_ids), dtype=bool)
        state.tile_blocked[np.concatenate([self.tiles_covering[c] for c in state.pasture])] = True
        state.tile_touch[np.concatenate([self.tiles_around[c] for c in state.pasture])] = True

    def tile_ok(self, state: BattleSheepState, action: int) -> bool:
        """One tile placement's legality (same rule as :meth:`legal_tiles`, without the full vector)."""
        tile = self.tile_cells[action]
        if tile is None:
            return False
        cells = state.cells
        if state.num_pasture == 0:
            return tile[0] == self.center
        for c in tile:
            if cells[c] != NO_PASTURE:
                return False
        nbrs = self.grid.neighbor_lists
        for c in tile:
            for j in nbrs[c]:
                if cells[j] != NO_PASTURE:
                    return True
        return False

    def place_tile(self, state: BattleSheepState, action: int) -> None:
        """Lay tile ``action`` (legal) on the pasture and re-centre the frame."""
        tile = self.tile_cells[action]
        for c in tile:
            state.cells[c] = EMPTY
            state.pasture.append(c)
        if state.tile_blocked is not None:  # kept up to date once legal_tiles has built them
            for c in tile:
                state.tile_blocked[self.tiles_covering[c]] = True
                state.tile_touch[self.tiles_around[c]] = True
        if state.extent is not None:
            q0, q1, r0, r1, s0, s1 = self.tile_extent(action)
            e = state.extent
            state.extent = (min(e[0], q0), max(e[1], q1), min(e[2], r0), max(e[3], r1), min(e[4], s0), max(e[5], s1))
        state.num_pasture += 4
        self.recentre(state)

    def extent(self, cells: list[int]) -> tuple[int, int, int, int, int, int]:
        """(min q, max q, min r, max r, min s, max s) of some cells (non-empty)."""
        coords = self.grid.coords
        qs = [coords[c][0] for c in cells]
        rs = [coords[c][1] for c in cells]
        ss = [-coords[c][0] - coords[c][1] for c in cells]
        return min(qs), max(qs), min(rs), max(rs), min(ss), max(ss)

    def tile_extent(self, action: int) -> tuple[int, int, int, int, int, int]:
        """:meth:`extent` of tile ``action``'s cells (computed once per tile)."""
        extent = self._tile_extents.get(action)
        if extent is None:
            extent = self._tile_extents[action] = self.extent(self.tile_cells[action])
        return extent

    def shift(self, pasture: list[int]) -> tuple[int, int]:
        """The translation ``(dq, dr)`` that puts the centre of the pasture's smallest enclosing hexagon (with
        :func:`enclosing_hexagon`'s tie-break) on the canvas centre; ``(0, 0)`` when it is there already."""
        (cq, cr), _ = hexagon_around(*self.extent(pasture))
        return -cq, -cr

    def recentre(self, state: BattleSheepState) -> None:
        """Translate the pasture so that its enclosing hexagon is centred (RULES.md, "The frame"). A translation
        keeps every adjacency; the pasture still fits, as it fitted where it was and the centred hexagon is
        the smallest one."""
        if state.extent is None:
            state.extent = self.extent(state.pasture)
        cq, cr = _hexagon_centre(state.extent)
        if cq == 0 and cr == 0:
            return
        dq, dr = -cq, -cr
        q0, q1, r0, r1, s0, s1 = state.extent
        state.extent = (q0 + dq, q1 + dq, r0 + dr, r1 + dr, s0 - dq - dr, s1 - dq - dr)
        shift = self._shifts.get((dq, dr))
        if shift is None:  # where each cell goes under this translation (None: off the canvas), made once
            index, coords = self.grid.index, self.grid.coords
            shift = self._shifts[(dq, dr)] = [index.get((q + dq, r + dr)) for q, r in coords]
        cells = state.cells
        moved = [shift[c] for c in state.pasture]
        for c in state.pasture:
            cells[c] = NO_PASTURE
        for c in moved:
            cells[c] = EMPTY
        state.pasture = moved
        state.tile_blocked = state.tile_touch = None  # rebuilt from the moved pasture when next needed


class BattleSheepGame(Game[BattleSheepState]):
    """Battle Sheep for 2-4 players. Options: num_players, pasture, end_rule, canvas_radius."""

    name = "battle_sheep"
    observation_dtype = np.float32
    min_canvas_radius: dict[int, int] = MIN_CANVAS_RADIUS
    """Smallest accepted canvas radius per player count (a subclass may lower it to study refused sizes)."""

    def __init__(self, **options: Any):
        """The game with ``options`` (:data:`OPTIONS`: their defaults and allowed values; ``canvas_radius``'s
        smallest value depends on the player count, :attr:`min_canvas_radius`)."""
        o = OPTIONS.check(options, self.name, unchecked=("canvas_radius",))
        self.num_players = o["num_players"]
        self.pasture_mode = o["pasture"]
        self.end_rule = o["end_rule"]
        if self.end_rule == "splits" and self.num_players != 2:
            raise ConfigError("end_rule='splits' is the original 2-player game; it needs num_players=2")
        canvas_radius = o["canvas_radius"]
        if canvas_radius is None:
            canvas_radius = DEFAULT_CANVAS_RADIUS[self.num_players]
        smallest = self.min_canvas_radius[self.num_players]
        if (
            isinstance(canvas_radius, (int, np.integer))
            and not isinstance(canvas_radius, bool)
            and canvas_radius < smallest
        ):
            raise ConfigError(
                f"canvas_radius={canvas_radius!r} is too small for {self.num_players} players: a build could get "
                f"stuck with no room for a tile; allowed: an integer from {smallest} to {MAX_CANVAS_RADIUS} "
                "(RULES.md, 'Canvas size')"
            )
        # the table's range, narrowed to the smallest canvas of this player count
        self.canvas_radius = check_int_range("canvas_radius", canvas_radius, smallest, OPTIONS["canvas_radius"].high)
        self.grid = grid = HexGrid(self.canvas_radius)
        self.center = grid.index[(0, 0)]
        self.codec = ActionCodec(grid)
        self.num_actions = self.codec.num_actions
        self.build = build = PastureBuild(grid)
        self.tile_cells, self.tile_ids, self.tile_on_canvas = build.tile_cells, build.tile_ids, build.tile_on_canvas
        self.total_tiles = TILES_PER_PLAYER * self.num_players
        self.layout_sizes = {"cells": grid.num_cells, "players": self.num_players, "pasture": 4 * self.total_tiles}
        """The named sizes of the state's declaration (``kernels.STATE``): canvas cells, seats, full pasture cells."""
        self.num_channels = 6 + 3 * self.num_players + NUM_DERIVED_PLANES
        self.observation_shape = (self.num_channels, *grid.square_shape)
        # moves: each turn at least one sheep lands on a new pasture cell
        self.max_game_length = self.total_tiles + self.num_players + SHEEP_PER_PLAYER * self.num_players
        self.tables = t = GridTables(grid, self.tile_cells)
        """The canvas's tables for the compiled kernels (observation, mask, batched engine)."""
        self.view = view_tables(t, self.num_channels, self.num_players, grid.square_shape)
        """What the observation reads besides the kernels' tables (:class:`ViewTables`)."""
        self.mask_tables, self.observation_tables, self.observation_mask_tables, self.tile_tables = (
            tuple(k) for k in reference_tables(t, self.num_players)
        )
        """The compiled kernels' tables (``kernels.MaskTables``, ``ObservationTables``, ``ObservationMaskTables``,
        ``TileTables``), as the plain tuples the kernels Python calls take (``kernels.py`` says why)."""
        self._no_border = np.zeros(t.num_cells, dtype=np.bool_)
        self._pasture: tuple[list[int], np.ndarray, np.ndarray] = ([], self._no_border, t.all_cells)
        """The last finished pasture met, its outside border per cell and its cells (:meth:`finished_pasture`)."""
        self._row_pasture = np.zeros((1, 4 * self.total_tiles), dtype=np.int64)
        self._row_extent = np.zeros((1, 6), dtype=np.int64)
        self._row_count = np.zeros(1, dtype=np.int64)
        """Scratch: a state's pasture, extent and pasture size as the one row :meth:`lay_tile`'s kernel reads."""
        _load_kernels(self)

    def options(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "pasture": self.pasture_mode,
            "end_rule": self.end_rule,
            "canvas_radius": self.canvas_radius,
        }

    # ----- set-up ---------------------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator) -> BattleSheepState:
        state = BattleSheepState(self.num_players, self.grid.num_cells)
        if self.pasture_mode == "random":
            # The same tiles as in the rulebook, placed by uniform random legal placements.
            while state.phase == BUILD:
                legal = self.legal_actions(state)
                self.apply(state, legal[int(rng.integers(len(legal)))], rng)
            state.plies = 0
            state.last_action = -1
        return state

    def clone(self, state: BattleSheepState) -> BattleSheepState:
        return state.clone()

    def blank_state(self) -> BattleSheepState:
        """A state with an empty canvas, no tile laid yet (to be filled in by snapshots and text boards)."""
        return BattleSheepState(self.num_players, self.grid.num_cells)

    def current_player(self, state: BattleSheepState) -> int:
        return TERMINAL if state.phase == OVER else state.to_move

    # ----- the compiled kernels' tables ---------------------------------------------------------------------
    def finished_pasture(self, state: BattleSheepState) -> tuple[np.ndarray, np.ndarray]:
        """``(on_border, where)`` as the kernels read them: once the pasture is built, its outside border per cell
        (where stacks are placed) and its cells, so that the kernels visit 4 cells per tile instead of the whole
        canvas (kept for the next call on the same pasture); during the build, no border and every cell."""
        if state.phase == BUILD:
            return self._no_border, self.tables.all_cells
        pasture, on_border, where = self._pasture
        if state.pasture is not pasture and state.pasture != pasture:
            on_border = np.zeros(self.tables.num_cells, dtype=np.bool_)
            on_border[list(state.border)] = True
            where = np.array(state.pasture, dtype=np.int64)
            self._pasture = (state.pasture, on_border, where)
        return on_border, where

    # ----- legal actions ------------------------------------------------------------------------------
    def legal_tiles(self, state: BattleSheepState) -> np.ndarray:
        """Boolean vector over tile actions: on canvas, no overlap, sharing an edge with the pasture."""
        return self.build.legal_tiles(state)

    def outer_border(self, state: BattleSheepState) -> tuple[int, ...]:
        """Pasture cells touching the unbounded exterior (not only an interior hole): ``HexGrid.outer_border`` of
        the pasture, computed by a compiled flood fill (``kernels.outer_border``, tested equal)."""
        n = self.grid.num_cells
        border = np.empty(n, dtype=np.bool_)
        kernels.outer_border(
            arrays_of(state)[0], self.tables.nbr, np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.int64), border
        )
        return tuple(np.flatnonzero(border).tolist())

    def legal_stack_cells(self, state: BattleSheepState) -> list[int]:
        """Unoccupied pasture cells on the outside border."""
        cells = state.cells
        return [i for i in state.border if cells[i] == EMPTY]

    def legal_moves(self, state: BattleSheepState, seat: int | None = None) -> list[tuple[int, int, int, int]]:
        """Moves of ``seat`` (default: the mover) as ``(cell, direction, destination, max_count)``."""
        if seat is None or seat == state.to_move:
            if state._moves is None:
                state._moves = self._compute_moves(state, state.to_move)
            return state._moves
        return self._compute_moves(state, seat)

    def _compute_moves(self, state: BattleSheepState, seat: int) -> list[tuple[int, int, int, int]]:
        cells, heights, rays = state.cells, state.heights, self.grid.rays
        out = []
        for c in state.stacks[seat]:
            h = heights[c]
            if h < 2:
                continue
            for d, ray in enumerate(rays[c]):
                dest = -1
                for j in ray:
                    if cells[j] != EMPTY:
                        break
                    dest = j
                if dest >= 0:
                    out.append((c, d, dest, h - 1))
        return out

    def legal_mask(self, state: BattleSheepState) -> np.ndarray:
        """The mover's int8 mask, built by a compiled kernel (``kernels.legal_mask_into``); the readable
        definition is :meth:`legal_mask_python`, and the tests check that both agree."""
        mask = np.empty(self.num_actions, dtype=np.int8)
        cells, heights = arrays_of(state)
        on_border, where = self.finished_pasture(state)
        kernels.legal_mask_into(
            self.mask_tables, cells, heights, state.phase, state.to_move, state.num_pasture, on_border, where, mask
        )
        return mask

    def legal_mask_python(self, state: BattleSheepState) -> np.ndarray:
        """The mover's int8 mask: tiles from :meth:`legal_tiles`, stacks on the free outer border, and every count
        of every move of :meth:`legal_moves`."""
        if state.phase == OVER:
            return np.zeros(self.num_actions, dtype=np.int8)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if state.phase == BUILD:
            mask[: self.codec.stack_base] = self.legal_tiles(state)
        elif state.phase == PLACE:
            mask[[self.codec.stack_base + c for c in self.legal_stack_cells(state)]] = 1
        else:
            base = self.codec.move_base
            for c, d, _, k in self.legal_moves(state):
                start = base + (c * 6 + d) * MAX_MOVE
                mask[start : start + k] = 1
        return mask

    def legal_actions(self, state: BattleSheepState) -> list[int]:
        if state.phase == MOVE:
            base = self.codec.move_base
            out = []
            # ascending ids: the moves come in stack order; (cell, direction) order is id order
            for c, d, _, k in sorted(self.legal_moves(state)):
                start = base + (c * 6 + d) * MAX_MOVE
                out.extend(range(start, start + k))
            return out
        if state.phase == BUILD:
            return np.flatnonzero(self.legal_tiles(state)).tolist()
        if state.phase == PLACE:
            return [self.codec.stack_base + c for c in self.legal_stack_cells(state)]
        return []

    # ----- applying actions -----------------------------------------------------------------------
    def apply(self, state: BattleSheepState, action: int, rng: np.random.Generator | None = None) -> None:
        if type(action) is not int or not 0 <= action < self.num_actions:
            action = self.check_action_range(action)
        if state.phase == OVER:
            raise IllegalActionError(f"action {action}: the game is over")
        kind, a, b, k = self.codec.decode(action)
        seat = state.to_move
        if state.phase == BUILD:
            if kind != "tile":
                raise IllegalActionError(f"action {action} ({kind}): pasture building needs a tile placement")
            if not self.build.tile_ok(state, action):
                raise IllegalActionError(
                    f"action {action} ({self.codec.to_str(state, action)}): the tile must lie on the canvas, overlap "
                    "no pasture and share an edge with it (the first tile covers the centre)"
                )
            self.lay_tile(state, action)
            state.tiles_left[seat] -= 1
            if state.num_pasture == 4 * self.total_tiles:
                state.phase = PLACE
                state.border = self.outer_border(state)
                state.tile_blocked = state.tile_touch = None
                state.to_move = 0
            else:
                state.to_move = (seat + 1) % self.num_players
        elif state.phase == PLACE:
            if kind != "stack" or a not in self.legal_stack_cells(state):
                raise IllegalActionError(
                    f"action {action} ({self.codec.to_str(state, action)}): the stack goes on an unoccupied "
                    "pasture on the outside border"
                )
            state.cells[a] = seat
            state.heights[a] = SHEEP_PER_PLAYER
            state.stacks[seat].append(a)
            state.stacks_placed += 1
            if state.stacks_placed == self.num_players:
                state.phase = MOVE
                state.to_move = -1
                self.advance_mover(state, first=0)
            else:
                state.to_move = seat + 1
        else:
            if kind != "move":
                raise IllegalActionError(f"action {action} ({kind}): in the move phase only moves are legal")
            c, d = a, b
            dest = self.slide(state, c, d)
            if state.cells[c] != seat or state.heights[c] < 2 or dest < 0:
                raise IllegalActionError(
                    f"action {action} ({self.codec.to_str(state, action)}): no stack of {SEAT_LETTERS[seat]} that "
                    "can split there, or the first cell in that direction is blocked"
                )
            max_k = state.heights[c] - 1
            if k > max_k:
                raise IllegalActionError(
                    f"action {action} ({self.codec.to_str(state, action)}): at most {max_k} sheep can leave that "
                    "stack (one must stay)"
                )
            state.heights[c] -= k
            state.cells[dest] = seat
            state.heights[dest] = k
            state.stacks[seat].append(dest)
            self.advance_mover(state, first=seat + 1)
        state.plies += 1
        state.last_action = action
        state._moves = None

    def lay_tile(self, state: BattleSheepState, action: int) -> None:
        """Lay tile ``action`` (legal) and re-centre the frame: :meth:`PastureBuild.place_tile` (the readable
        definition, tested equal) by the kernel both engines share (``kernels.place_tile``), on the state as
        one row. The build's tile-legality arrays are dropped (rebuilt when :meth:`legal_tiles` next needs them)."""
        m = state.num_pasture
        pasture, extent, count = self._row_pasture, self._row_extent, self._row_count
        if m:
            pasture[0, :m] = state.pasture
            extent[0] = state.extent if state.extent is not None else self.build.extent(state.pasture)
        count[0] = m
        kernels.lay_tile_into(self.tile_tables, arrays_of(state)[0][None], count, pasture, extent, action)
        state.pasture = pasture[0, : m + 4].tolist()
        state.extent = tuple(extent[0].tolist())
        state.num_pasture = m + 4
        state.tile_blocked = state.tile_touch = None

    def extent(self, cells: list[int]) -> tuple[int, int, int, int, int, int]:
        return self.build.extent(cells)

    def frame_shift(self, pasture: list[int]) -> tuple[int, int]:
        return self.build.shift(pasture)

    def advance_mover(self, state: BattleSheepState, first: int) -> None:
        """Next mover from seat ``first`` clockwise, skipping seats that cannot move; end if nobody can (also
        ``render.board_from_text``, which builds positions to test)."""
        n = self.num_players
        state._moves = None
        if self.end_rule == "splits":
            seat = first % n
            state.to_move = seat
            if not self.has_move(state, seat):
                state.can_move[seat] = False
                state.phase = OVER
            return
        for step in range(n):
            seat = (first + step) % n
            if not state.can_move[seat]:
                continue
            if self.has_move(state, seat):
                state.to_move = seat
                return
            state.can_move[seat] = False
        state.phase = OVER

    def has_move(self, state: BattleSheepState, seat: int) -> bool:
        """Whether ``seat`` can move: one of its stacks has 2 sheep or more and a free pasture next to it."""
        cells, heights, nbrs = state.cells, state.heights, self.grid.neighbor_lists
        for c in state.stacks[seat]:
            if heights[c] >= 2:
                for j in nbrs[c]:
                    if cells[j] == EMPTY:
                        return True
        return False

    def slide(self, state: BattleSheepState, cell: int, direction: int) -> int:
        """Where sheep leaving ``cell`` in ``direction`` stop (the last free pasture before another stack, a
        non-pasture cell or the canvas edge); -1 if the first cell that way is not free."""
        cells = state.cells
        dest = -1
        for j in self.grid.rays[cell][direction]:
            if cells[j] != EMPTY:
                break
            dest = j
        return dest

    # ----- scoring --------------------------------------------------------------------------------
    def largest_herd(self, state: BattleSheepState, seat: int) -> int:
        """Size of the seat's largest group of occupied pastures on adjacent cells, counted by a compiled flood
        fill (``kernels.largest_herd``); the readable definition is :meth:`largest_herd_python`, tested equal."""
        n = self.grid.num_cells
        return int(
            kernels.largest_herd(
                arrays_of(state)[0], self.tables.nbr, seat, np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.int64)
            )
        )

    def largest_herd_python(self, state: BattleSheepState, seat: int) -> int:
        """Size of the seat's largest group of occupied pastures on adjacent cells."""
        mine = [c == seat for c in state.cells]
        comps = self.grid.components(mine, state.stacks[seat])
        return max((len(c) for c in comps), default=0)

    def rank_key(self, state: BattleSheepState, seat: int) -> tuple[int, int]:
        """(pastures occupied, largest herd): the rulebook's winner and its tie-break, compared in order."""
        return (len(state.stacks[seat]), self.largest_herd(state, seat))

    def scores(self, state: BattleSheepState) -> np.ndarray:
        """Pastures occupied per seat."""
        return np.array([len(s) for s in state.stacks], dtype=np.float64)

    def movable_sheep(self, state: BattleSheepState, seat: int) -> int:
        """Sheep of ``seat`` that could still leave: all but one of each stack of 2+ with a free neighbour."""
        cells, heights, nbrs = state.cells, state.heights, self.grid.neighbor_lists
        total = 0
        for c in state.stacks[seat]:
            if heights[c] >= 2 and any(cells[j] == EMPTY for j in nbrs[c]):
                total += heights[c] - 1
        return total

    def shaping_potential(self, state: BattleSheepState) -> np.ndarray:
        """Pastures occupied + :meth:`movable_sheep` per seat, the most a seat could still reach: a split that strands
        sheep lowers it at once, where the score shows the loss only when the seat runs out of moves."""
        return np.array(
            [len(state.stacks[s]) + self.movable_sheep(state, s) for s in range(self.num_players)], dtype=np.float64
        )

    def returns(self, state: BattleSheepState) -> np.ndarray:
        if state.phase != OVER:
            return np.zeros(self.num_players)
        if self.end_rule == "splits":
            out = np.ones(2)
            out[state.to_move] = -1.0  # the player to move could not move: they lose
            return out
        return pairwise_rewards([self.rank_key(state, s) for s in range(self.num_players)])

    has_symmetries = True
    """The 12 rotations and reflections of the canvas hold in the move phase (``observation.symmetries``)."""

    # ----- notation ---------------------------------------------------------------------------------
    def action_to_str(self, state: BattleSheepState, action: int) -> str:
        return self.codec.to_str(state, self.check_action_range(action))

    def str_to_action(self, state: BattleSheepState, text: str) -> int:
        action = self.codec.parse(state, text)
        if action is None:
            raise IllegalActionError(
                f"{text!r} is not Battle Sheep notation: 'T q,r/o' (tile), 'S q,r' (stack) or 'q,r DIR n' (move), "
                f"DIR one of {', '.join(DIRECTION_NAMES)}"
            )
        return action
