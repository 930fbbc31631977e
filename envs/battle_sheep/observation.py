"""What a Battle Sheep seat sees: the observation planes (layout in RULES.md), the readable definition and the
compiled kernels that build them (with the legal mask, in one call, for the env), in both engines, the symmetries
of the canvas, and the action layout and cell graph that networks read.

The compiled kernels read a position as the rules' kernels do (``kernels.py``: ``cells`` and ``heights`` per canvas
cell, the tables ``tab``, here ``kernels.ObservationTables``); the readable definition (:func:`observation_numpy`)
is tested equal to them. The reference engine's calls (:func:`observe`, :func:`observation_and_mask`) hand the
game's tables over as plain tuples (``rules.BattleSheepGame.observation_tables``; ``kernels.py`` says why); the
batched engine's (:func:`observe_rows`, ``fast.BattleSheepBatched.observe``) makes them from its
``kernels.Tables``.

numba's on-disk cache watches only the file of the function it compiled: the kernels here have ``kernels.py``'s
compiled into them and do not notice edits there (after editing either, clear ``envs/battle_sheep/__pycache__``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.battle_sheep.actions import (
    BUILD,
    EMPTY,
    MAX_MOVE,
    MOVE,
    NO_PASTURE,
    OVER,
    SHEEP_PER_PLAYER,
    TILES_PER_PLAYER,
)
from envs.battle_sheep.kernels import ObservationMaskTables, ObservationTables, mask_into, slide
from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState, arrays_of
from envs.common.game import CellGraph, Symmetry
from envs.common.hexgrid import DIRECTIONS, transforms
from envs.common.jit import refcount_jit

_SYMMETRIES: dict[tuple[int, int], tuple[Symmetry, ...]] = {}
"""``symmetries`` per (num_players, canvas_radius), built on first use."""


# ----- the observation, compiled ------------------------------------------------------------------------------------
@refcount_jit
def observe_into(tab, cells, heights, tiles_left, phase, seat, where, num_where, out):
    """The planes of :func:`observation_numpy` from ``seat``'s side into ``out`` (float32, (15 + 3n, (2R+1)^2)), in
    both engines. ``where[:num_where]``: cells that hold the pasture (and maybe others); ``tab``: the
    ``kernels.ObservationTables`` (or ``kernels.ObservationMaskTables``)."""
    num_players, square, canvas, nbr, lib = tab.num_players, tab.square, tab.canvas, tab.nbr, tab.work_lib
    n = num_players
    planes = out.shape[0]
    width = out.shape[1]
    zero_value = np.float32(0.0)
    one = np.float32(1.0)
    for k in range(width):
        out[0, k] = canvas[k]
    for p in range(1, planes):
        for k in range(width):
            out[p, k] = zero_value
    for i in range(num_where):
        c = where[i]
        v = cells[c]
        if v == NO_PASTURE:
            continue
        k = square[c]
        out[1, k] = one
        if v == EMPTY:
            out[2, k] = one
        else:
            rel = v - seat
            if rel < 0:
                rel += n
            out[3 + rel, k] = one
            out[3 + n + rel, k] = heights[c] * (1.0 / SHEEP_PER_PLAYER)
    for s in range(n):
        if tiles_left[s]:
            rel = s - seat
            if rel < 0:
                rel += n
            value = np.float32(tiles_left[s] / TILES_PER_PLAYER)
            for k in range(width):
                out[3 + 2 * n + rel, k] = value
    if phase != OVER:
        for k in range(width):
            out[3 + 3 * n + phase, k] = one
    if phase == BUILD:
        return
    # derived planes: free neighbours, where each slide stops
    free_plane = 6 + 3 * n
    for i in range(num_where):
        c = where[i]
        if cells[c] == NO_PASTURE:
            continue
        count = 0
        for d in range(6):
            j = nbr[c, d]
            if j >= 0 and cells[j] == EMPTY:
                count += 1
        lib[c] = count
        out[free_plane, square[c]] = count * (1.0 / 6.0)
    for i in range(num_where):
        c = where[i]
        v = cells[c]
        if v < 0 or heights[c] < 2:
            continue
        for d in range(6):
            dest = slide(cells, nbr, c, d)
            if dest < 0:
                continue
            if v == seat:
                out[free_plane + 1 + d, square[c]] = (1.0 + lib[dest]) * (1.0 / 7.0)
                out[free_plane + 7, square[dest]] = one
            else:
                out[free_plane + 8, square[dest]] = one


@refcount_jit
def observe_position(tab, cells, heights, tiles_left, phase, seat, where, out):
    """:func:`observe_into` of a reference position, visiting the cells ``where`` (``rules.finished_pasture``):
    ``tab``, the game's ``kernels.ObservationTables`` as a plain tuple from Python."""
    observe_into(ObservationTables(*tab), cells, heights, tiles_left, phase, seat, where, where.shape[0], out)


@refcount_jit
def observe_and_mask_into(tab, cells, heights, tiles_left, phase, seat, num_pasture, pasture, obs_out, mask_out):
    """:func:`observe_position` and ``kernels.legal_mask_into`` in one call (``seat`` is the mover; ``tab``: the
    game's ``kernels.ObservationMaskTables`` as a plain tuple; ``pasture``: ``(on_border, where)``,
    ``rules.BattleSheepGame.finished_pasture``): each call of a compiled kernel from Python costs about a
    microsecond of argument checks, as much as the mask's work."""
    t = ObservationMaskTables(*tab)
    on_border, where = pasture
    observe_into(t, cells, heights, tiles_left, phase, seat, where, where.shape[0], obs_out)
    mask_into(t, cells, heights, phase, seat, num_pasture, on_border, where, mask_out)


@refcount_jit
def observe_rows(st, tab, seats, out):
    """The batched engine's observations: row ``b`` of the batched state ``st`` from seat ``seats[b]`` into
    ``out[b]`` ((B, planes, squares) float32; ``fast.BattleSheepBatched.observe``), with its tables ``tab``."""
    lib = np.empty(st.cells.shape[1], dtype=np.int64)
    t = ObservationTables(tab.num_players, tab.square, tab.canvas, tab.nbr, lib)
    for b in range(seats.shape[0]):
        observe_into(
            t,
            st.cells[b],
            st.heights[b],
            st.tiles_left[b],
            st.phase[b],
            seats[b],
            st.pasture[b],
            st.num_pasture[b],
            out[b],
        )


# ----- the observation of a reference position ----------------------------------------------------------------------
def tiles_left_array(game: BattleSheepGame, state: BattleSheepState) -> np.ndarray:
    """The tiles each seat still has to place, as the int8 array the observation kernels read (one made per count
    when the game was built, not per observation)."""
    tiles_left = game.view.tiles_left.get(tuple(state.tiles_left))
    return np.array(state.tiles_left, dtype=np.int8) if tiles_left is None else tiles_left


def observe(game: BattleSheepGame, state: BattleSheepState, seat: int) -> np.ndarray:
    """The planes of :func:`observation_numpy`, built by a compiled kernel (:func:`observe_into`); the tests
    check that both agree."""
    out = np.empty(game.view.planes, dtype=np.float32)
    cells, heights = arrays_of(state)
    tiles_left = tiles_left_array(game, state)
    where = game.finished_pasture(state)[1]
    observe_position(game.observation_tables, cells, heights, tiles_left, state.phase, seat, where, out)
    return out.reshape(game.observation_shape)


def observation_and_mask(game: BattleSheepGame, state: BattleSheepState, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`observe` and the legal mask (``rules.BattleSheepGame.legal_mask``) of the mover ``seat`` by one kernel
    call."""
    obs = np.empty(game.view.planes, dtype=np.float32)
    mask = np.empty(game.num_actions, dtype=np.int8)
    cells, heights = arrays_of(state)
    tiles_left = tiles_left_array(game, state)
    tables, pasture = game.observation_mask_tables, game.finished_pasture(state)
    observe_and_mask_into(tables, cells, heights, tiles_left, state.phase, seat, state.num_pasture, pasture, obs, mask)
    return obs.reshape(game.observation_shape), mask


def observation_numpy(game: BattleSheepGame, state: BattleSheepState, seat: int) -> np.ndarray:
    """Planes on the square embedding (see RULES.md), seats rotated so that ``seat`` comes first."""
    n = game.num_players
    obs = game.view.template.copy()
    sq = game.grid.square_index
    cells = np.array(state.cells)
    obs[1, sq] = cells != NO_PASTURE
    obs[2, sq] = cells == EMPTY
    occ = cells >= 0
    if occ.any():
        where = sq[occ]
        rel = (cells[occ] - seat) % n
        obs[3 + rel, where] = 1.0
        obs[3 + n + rel, where] = np.array(state.heights)[occ] * (1.0 / SHEEP_PER_PLAYER)
    for s in range(n):
        if state.tiles_left[s]:
            obs[3 + 2 * n + (s - seat) % n] = state.tiles_left[s] / TILES_PER_PLAYER
    if state.phase != OVER:
        obs[3 + 3 * n + state.phase] = 1.0
    if state.phase != BUILD:
        derived_planes(game, state, seat, cells, obs[6 + 3 * n :])
    return obs.reshape(game.observation_shape)


def derived_planes(
    game: BattleSheepGame, state: BattleSheepState, seat: int, cells: np.ndarray, planes: np.ndarray
) -> None:
    """Fill the derived planes (RULES.md): what a slide leads to, so that a network need not trace rays
    across the board before it can judge a move."""
    sq = game.grid.square_index
    free = np.append(cells == EMPTY, False)
    liberties = free[game.grid.neighbors_padded].sum(axis=1)
    pasture = cells != NO_PASTURE
    planes[0, sq[pasture]] = liberties[pasture] * (1.0 / 6.0)
    for s in range(game.num_players):
        moves = game.legal_moves(state, seat=s)
        if not moves:
            continue
        source, direction, dest, _ = np.array(moves, dtype=np.int64).T
        if s == seat:
            planes[1 + direction, sq[source]] = (1.0 + liberties[dest]) * (1.0 / 7.0)
            planes[7, sq[dest]] = 1.0
        else:
            planes[8, sq[dest]] = 1.0


def symmetries(game: BattleSheepGame, state: BattleSheepState) -> tuple[Symmetry, ...]:
    """The 12 rotations and reflections of the canvas about its centre, in the move phase only.

    The rules are symmetric there (the canvas is a hexagon round the centre). The build phase is not (the
    first tile covers the centre in 3 orientations and the frame's tie-break is not symmetric, RULES.md);
    stack placement is, but averaging a policy over the symmetries in the set-up phases measured worse
    against greedy (RULES.md, "Symmetries").
    """
    if state.phase != MOVE:
        return ()
    key = (game.num_players, game.canvas_radius)
    if key not in _SYMMETRIES:  # shared by every engine of this shape: the harness builds one per game
        tile_by_cells = {frozenset(t): i for i, t in enumerate(game.tile_cells) if t is not None}
        _SYMMETRIES[key] = tuple(symmetry(game, t, tile_by_cells) for t in transforms("free"))
    return _SYMMETRIES[key]


def symmetry(game: BattleSheepGame, point_map: Any, tile_by_cells: dict[frozenset[int], int]) -> Symmetry:
    grid, n, codec = game.grid, game.num_players, game.codec
    cell_map = np.array([grid.index[point_map(c)] for c in grid.coords], dtype=np.int64)
    dir_map = np.array([DIRECTIONS.index(point_map(DIRECTIONS[d])) for d in range(6)], dtype=np.int64)
    side = grid.square_shape[0] * grid.square_shape[1]
    square_map = np.arange(side)
    square_map[grid.square_index] = grid.square_index[cell_map]
    channel_map = np.arange(game.num_channels)
    first_direction_plane = 7 + 3 * n
    channel_map[first_direction_plane : first_direction_plane + 6] = first_direction_plane + dir_map
    source = np.empty(game.num_channels * side, dtype=np.int64)
    target = (channel_map[:, None] * side + square_map[None, :]).ravel()
    source[target] = np.arange(game.num_channels * side)
    actions = np.arange(game.num_actions)
    for i, t in enumerate(game.tile_cells):
        if t is not None:
            actions[i] = tile_by_cells[frozenset(int(cell_map[c]) for c in t)]
    actions[codec.stack_base : codec.move_base] = codec.stack_base + cell_map
    cell, direction, count = np.meshgrid(
        np.arange(grid.num_cells), np.arange(6), np.arange(1, MAX_MOVE + 1), indexing="ij"
    )
    actions[codec.move(cell, direction, count)] = codec.move(cell_map[cell], dir_map[direction], count)
    source.setflags(write=False)  # shared between engines (_SYMMETRIES)
    actions.setflags(write=False)
    return Symmetry(observation_source=source, actions=actions)


def cell_graph(game: BattleSheepGame) -> CellGraph:
    """The canvas cells on the square embedding with their six hex neighbours (E NE NW W SW SE). The support
    is the pasture (plane 1); in the build phase (plane ``3 + 3n``) also the canvas centre and every cell
    within two steps of the pasture: a legal tile touches the pasture, and its anchor (the action's cell) is
    next to each of its other three cells, so the anchor is at most two steps from a pasture hex (the first
    tile's anchor is the centre). Stack placements and moves start on pasture hexes."""
    grid = game.grid
    square = grid.square_index
    neighbours = np.full((grid.square_shape[0] * grid.square_shape[1], 6), -1, dtype=np.int64)
    neighbours[square] = np.where(grid.neighbors >= 0, square[np.maximum(grid.neighbors, 0)], -1)
    return CellGraph(
        neighbours=neighbours,
        cell_plane=1,
        grow_plane=3 + 3 * game.num_players,
        grow_steps=2,
        seed_cell=int(square[game.center]),
    )


def action_layout(game: BattleSheepGame) -> np.ndarray:
    """Per-cell layout of the codec: tiles ``3a + o`` on channels 0-2, stacks on channel 3, moves
    ``(6c + d) * 15 + k - 1`` on channels ``4 + 15d + k - 1``; cells as in the observation planes."""
    ids = np.arange(game.num_actions)
    cell = np.empty_like(ids)
    channel = np.empty_like(ids)
    tiles = ids < game.codec.stack_base
    cell[tiles], channel[tiles] = ids[tiles] // 3, ids[tiles] % 3
    stacks = (ids >= game.codec.stack_base) & (ids < game.codec.move_base)
    cell[stacks], channel[stacks] = ids[stacks] - game.codec.stack_base, 3
    moves = ids >= game.codec.move_base
    rest = ids[moves] - game.codec.move_base
    cell[moves], channel[moves] = rest // (6 * MAX_MOVE), 4 + rest % (6 * MAX_MOVE)
    return np.stack([game.grid.square_index[cell], channel], axis=1)
