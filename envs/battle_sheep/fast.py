"""Battle Sheep, batched and compiled: B games per call on struct-of-arrays state, numba kernels.

:class:`BattleSheepBatched` is the :class:`~envs.common.vector.BatchedGame` of this game, for every option set of
``rules.BattleSheepGame`` (``num_players`` 2-4, ``pasture`` ``"build"`` / ``"random"``, ``end_rule``, every accepted
``canvas_radius``). ``rules.py`` stays the readable reference: ``tests/battle_sheep/test_battle_sheep_fast.py``
checks that both engines give identical legal masks, observations (every seat's), rewards, results and states over
thousands of random games. Observations and masks are built by the kernels of ``observation.py``, the ones the AEC
env uses, and are tested against the readable ``observation_numpy`` / ``legal_mask_python``.

State (:class:`BattleSheepBatchedState`, one row per game): the canvas cells and stack heights, each seat's stacks in
the order they were first occupied (as the reference's ``stacks``), tiles left, phase, mover, stacks placed, who can
still move, and for the build phase the pasture's cells (in the reference's order) and extents (min / max of q, r,
s), which re-centre the frame after every tile placement exactly as ``rules.PastureBuild.recentre`` does (RULES.md, "The
frame": tile ids are relative to the re-centred pasture). ``on_border`` is the outside border, computed once when
the pasture is complete. ``rng`` is each game's own SplitMix64 generator (:mod:`envs.common.fastrng`); the only
chance in Battle Sheep is ``pasture="random"``'s build, whose placements it draws (``below(count)`` over the legal
tiles in id order, where ``rules.py`` asks its numpy generator ``integers(count)``): the streams are not numpy's,
so a batched game and an AEC env seeded alike build different pastures. :class:`envs.common.fastrng.MirrorRng`
makes the reference draw a row's placements (the differential tests use it).

Truncation: a live row that reaches ``max_game_length`` plies is truncated, as ``BarnyardAECEnv`` does (a Battle
Sheep game always ends before: every move occupies a new pasture).

The ``search`` baseline's kernels play on these rows from ``search.py``; the ``greedy`` baseline runs here
(:meth:`BattleSheepBatched.greedy_actions`, every row at once: ``baselines.GreedyPolicy``'s scores, tie-breaks from a
generator per row; ``tests/battle_sheep/test_battle_sheep_greedy_fast.py`` checks it move by move against the
Python policy and measures both with ``--speed``).

numba's on-disk cache of these kernels watches only this file, not ``observation.py`` whose functions they call:
after editing that file, touch this one (or clear ``envs/battle_sheep/__pycache__``).
"""

from __future__ import annotations

from array import array
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from envs.battle_sheep.actions import (
    BUILD,
    EMPTY,
    MAX_MOVE,
    MOVE,
    NO_PASTURE,
    OVER,
    PLACE,
    SHEEP_PER_PLAYER,
    TILES_PER_PLAYER,
)
from envs.battle_sheep.observation import (
    largest_herd,
    mask_tiles,
    observe_into,
    outer_border,
    place_tile,
    slide,
    stack_can_move,
    zero,
)
from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState
from envs.common.fastrng import below
from envs.common.game import TERMINAL
from envs.common.vector import BatchedGame

MAX_STACKS = SHEEP_PER_PLAYER
"""A seat never has more stacks than sheep."""
MAX_SPANS = 6 * MAX_STACKS
"""The most runs of set entries in a mask row: one per (stack, direction)."""


class BattleSheepBatchedState(NamedTuple):
    """B Battle Sheep games; row ``b`` of every field is game ``b`` (see the module docstring)."""

    cells: np.ndarray  # (B, N) int8: NO_PASTURE, EMPTY or the seat of the stack there
    heights: np.ndarray  # (B, N) int8
    stacks: np.ndarray  # (B, n, 16) int64: each seat's stack cells, in the order first occupied
    num_stacks: np.ndarray  # (B, n) int64
    tiles_left: np.ndarray  # (B, n) int8
    phase: np.ndarray  # (B,) int64: BUILD, PLACE, MOVE, OVER
    to_move: np.ndarray  # (B,) int64: the mover (when over: as the reference keeps it)
    stacks_placed: np.ndarray  # (B,) int64
    can_move: np.ndarray  # (B, n) bool: False once a seat was found blocked
    num_pasture: np.ndarray  # (B,) int64
    pasture: np.ndarray  # (B, 16n) int64: the pasture's cells, in the reference's order
    extent: np.ndarray  # (B, 6) int64: min q, max q, min r, max r, min s, max s of the pasture
    on_border: np.ndarray  # (B, N) bool: pasture on the outside border (set when the pasture is complete)
    plies: np.ndarray  # (B,) int64: decisions played (the AEC env's truncation count)
    last_action: np.ndarray  # (B,) int64
    rng: np.ndarray  # (B,) uint64: the row's SplitMix64 generator


# ----- kernels on one row ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _next_seat(seat, n):
    return 0 if seat + 1 == n else seat + 1


@njit(cache=True, inline="always")
def _has_move(cells, heights, stacks, num_stacks, nbr, b, seat):
    """Whether ``seat`` of row ``b`` can move (rules.has_move)."""
    for i in range(num_stacks[b, seat]):
        if stack_can_move(cells[b], heights[b], nbr, stacks[b, seat, i]):
            return True
    return False


@njit(cache=True)
def _advance_mover(cells, heights, stacks, num_stacks, phase, to_move, can_move, nbr, b, first, n, splits):
    """Next mover from seat ``first`` clockwise, skipping blocked seats; over if nobody can move
    (rules._advance_mover; ``splits``: the seat to move that cannot move ends the game)."""
    if splits:
        seat = first if first < n else first - n
        to_move[b] = seat
        if not _has_move(cells, heights, stacks, num_stacks, nbr, b, seat):
            can_move[b, seat] = False
            phase[b] = OVER
        return
    seat = first if first < n else first - n
    for _ in range(n):
        if can_move[b, seat]:
            if _has_move(cells, heights, stacks, num_stacks, nbr, b, seat):
                to_move[b] = seat
                return
            can_move[b, seat] = False
        seat = _next_seat(seat, n)
    phase[b] = OVER


@njit(cache=True)
def _apply_row(
    cells,
    heights,
    stacks,
    num_stacks,
    tiles_left,
    phase,
    to_move,
    stacks_placed,
    can_move,
    num_pasture,
    pasture,
    extent,
    on_border,
    plies,
    last_action,
    b,
    action,
    n,
    splits,
    total_tiles,
    tiles,
    nbr,
    q,
    r,
    cell_at,
    radius,
):
    """Play ``action`` (legal) for the mover of live row ``b`` (rules.apply)."""
    seat = to_move[b]
    num_cells = cells.shape[1]
    ph = phase[b]
    if ph == BUILD:
        place_tile(cells, num_pasture, pasture, extent, b, action, tiles, q, r, cell_at, radius)
        tiles_left[b, seat] -= 1
        if num_pasture[b] == 4 * total_tiles:
            phase[b] = PLACE
            exterior = np.empty(num_cells, dtype=np.bool_)
            todo = np.empty(num_cells, dtype=np.int64)
            outer_border(cells[b], nbr, exterior, todo, on_border[b])
            to_move[b] = 0
        else:
            to_move[b] = _next_seat(seat, n)
    elif ph == PLACE:
        c = action - 3 * num_cells
        cells[b, c] = seat
        heights[b, c] = SHEEP_PER_PLAYER
        stacks[b, seat, num_stacks[b, seat]] = c
        num_stacks[b, seat] += 1
        stacks_placed[b] += 1
        if stacks_placed[b] == n:
            phase[b] = MOVE
            _advance_mover(cells, heights, stacks, num_stacks, phase, to_move, can_move, nbr, b, 0, n, splits)
        else:
            to_move[b] = seat + 1
    else:
        rest = action - 4 * num_cells
        cell_dir = rest // MAX_MOVE
        k = rest - cell_dir * MAX_MOVE + 1
        c = cell_dir // 6
        d = cell_dir - 6 * c
        dest = slide(cells[b], nbr, c, d)
        heights[b, c] -= k
        cells[b, dest] = seat
        heights[b, dest] = k
        stacks[b, seat, num_stacks[b, seat]] = dest
        num_stacks[b, seat] += 1
        _advance_mover(cells, heights, stacks, num_stacks, phase, to_move, can_move, nbr, b, seat + 1, n, splits)
    plies[b] += 1
    last_action[b] = action


@njit(cache=True)
def _set_legal_row(
    cells,
    heights,
    stacks,
    num_stacks,
    phase,
    to_move,
    num_pasture,
    pasture,
    on_border,
    b,
    tiles,
    cell_tiles,
    nbr,
    centre,
    code,
    near,
    out,
    span_start,
    span_len,
    num_spans,
):
    """Set row ``b``'s legal actions in ``out`` (its row, all zeros before) and record the spans of ``out`` it may
    have set (``span_start[b, i]``, ``span_len[b, i]`` for ``i < num_spans[b]``), so that the next call can clear
    just those instead of the whole row."""
    n = cells.shape[1]
    ph = phase[b]
    count = 0
    if ph == BUILD:
        mask_tiles(
            cells[b], pasture[b], num_pasture[b], num_pasture[b], tiles, cell_tiles, nbr, centre, code, near, out
        )
        span_start[b, 0] = 0
        span_len[b, 0] = 3 * n
        count = 1
    elif ph == PLACE:
        for i in range(num_pasture[b]):
            c = pasture[b, i]
            if on_border[b, c] and cells[b, c] == EMPTY:
                out[3 * n + c] = True
        span_start[b, 0] = 3 * n
        span_len[b, 0] = n
        count = 1
    elif ph == MOVE:
        seat = to_move[b]
        for i in range(num_stacks[b, seat]):
            c = stacks[b, seat, i]
            h = np.int64(heights[b, c])
            if h < 2:
                continue
            for d in range(6):
                j = nbr[c, d]
                if j >= 0 and cells[b, j] == EMPTY:
                    start = 4 * n + (c * 6 + d) * MAX_MOVE
                    for k in range(h - 1):
                        out[start + k] = True
                    span_start[b, count] = start
                    span_len[b, count] = h - 1
                    count += 1
    num_spans[b] = count


@njit(cache=True)
def _returns_row(cells, num_stacks, phase, to_move, b, n, splits, nbr, seen, todo, out):
    """Row ``b``'s terminal rewards into ``out`` (zeros while live): rules.returns."""
    for s in range(n):
        out[s] = 0.0
    if phase[b] != OVER:
        return
    if splits:
        out[0] = 1.0
        out[1] = 1.0
        out[to_move[b]] = -1.0
        return
    pastures = np.empty(n, dtype=np.int64)
    herds = np.empty(n, dtype=np.int64)
    for s in range(n):
        pastures[s] = num_stacks[b, s]
        herds[s] = largest_herd(cells[b], nbr, s, seen, todo)
    for i in range(n):
        for j in range(i + 1, n):
            if pastures[i] > pastures[j] or (pastures[i] == pastures[j] and herds[i] > herds[j]):
                out[i] += 1.0
                out[j] -= 1.0
            elif pastures[j] > pastures[i] or (pastures[j] == pastures[i] and herds[j] > herds[i]):
                out[j] += 1.0
                out[i] -= 1.0
    for s in range(n):
        out[s] /= n - 1


@njit(cache=True)
def _legal_tile_list(cells, num_pasture, pasture, b, tiles, cell_tiles, nbr, centre, code, near, tile_ok, out):
    """The legal tile placements of row ``b`` in id order into ``out``; returns how many. ``tile_ok``: scratch."""
    zero(tile_ok)
    mask_tiles(
        cells[b], pasture[b], num_pasture[b], num_pasture[b], tiles, cell_tiles, nbr, centre, code, near, tile_ok
    )
    count = 0
    for t in range(tile_ok.shape[0]):
        if tile_ok[t]:
            out[count] = t
            count += 1
    return count


# ----- kernels over the batch -----------------------------------------------------------------------------------------
@njit(cache=True)
def _reset_kernel(
    rows,
    cells,
    heights,
    stacks,
    num_stacks,
    tiles_left,
    phase,
    to_move,
    stacks_placed,
    can_move,
    num_pasture,
    pasture,
    extent,
    on_border,
    plies,
    last_action,
    rng,
    n,
    splits,
    total_tiles,
    random_pasture,
    tiles,
    cell_tiles,
    nbr,
    q,
    r,
    cell_at,
    radius,
    centre,
):
    """A new game in each of ``rows`` (rules.initial_state); ``random_pasture``: the tiles laid by uniformly random
    legal placements drawn from the row's generator, then the game starts at stack placement (plies 0)."""
    num_cells = cells.shape[1]
    code = np.empty(num_cells, dtype=np.int8)
    near = np.empty(num_cells, dtype=np.int64)
    tile_ok = np.empty(3 * num_cells, dtype=np.bool_)
    legal = np.empty(3 * num_cells, dtype=np.int64)
    for i in range(rows.shape[0]):
        b = rows[i]
        cells[b, :] = NO_PASTURE
        heights[b, :] = 0
        num_stacks[b, :] = 0
        tiles_left[b, :] = TILES_PER_PLAYER
        phase[b] = BUILD
        to_move[b] = 0
        stacks_placed[b] = 0
        can_move[b, :] = True
        num_pasture[b] = 0
        extent[b, :] = 0
        on_border[b, :] = False
        plies[b] = 0
        last_action[b] = -1
        if random_pasture:
            while phase[b] == BUILD:
                count = _legal_tile_list(
                    cells, num_pasture, pasture, b, tiles, cell_tiles, nbr, centre, code, near, tile_ok, legal
                )
                _apply_row(
                    cells,
                    heights,
                    stacks,
                    num_stacks,
                    tiles_left,
                    phase,
                    to_move,
                    stacks_placed,
                    can_move,
                    num_pasture,
                    pasture,
                    extent,
                    on_border,
                    plies,
                    last_action,
                    b,
                    legal[below(rng, b, count)],
                    n,
                    splits,
                    total_tiles,
                    tiles,
                    nbr,
                    q,
                    r,
                    cell_at,
                    radius,
                )
            plies[b] = 0
            last_action[b] = -1


@njit(cache=True)
def _apply_kernel(
    actions,
    cells,
    heights,
    stacks,
    num_stacks,
    tiles_left,
    phase,
    to_move,
    stacks_placed,
    can_move,
    num_pasture,
    pasture,
    extent,
    on_border,
    plies,
    last_action,
    n,
    splits,
    total_tiles,
    tiles,
    nbr,
    q,
    r,
    cell_at,
    radius,
):
    for b in range(actions.shape[0]):
        if phase[b] != OVER:
            _apply_row(
                cells,
                heights,
                stacks,
                num_stacks,
                tiles_left,
                phase,
                to_move,
                stacks_placed,
                can_move,
                num_pasture,
                pasture,
                extent,
                on_border,
                plies,
                last_action,
                b,
                actions[b],
                n,
                splits,
                total_tiles,
                tiles,
                nbr,
                q,
                r,
                cell_at,
                radius,
            )


@njit(cache=True)
def _legal_kernel(
    out,
    incremental,
    span_start,
    span_len,
    num_spans,
    cells,
    heights,
    stacks,
    num_stacks,
    phase,
    to_move,
    num_pasture,
    pasture,
    on_border,
    tiles,
    cell_tiles,
    nbr,
    centre,
):
    """Every row's legal mask into ``out``. ``incremental``: ``out`` holds what the previous call wrote, whose set
    entries lie in the recorded spans: clear those instead of the whole row (37,000 bytes a row at radius 11)."""
    code = np.empty(cells.shape[1], dtype=np.int8)
    near = np.empty(cells.shape[1], dtype=np.int64)
    for b in range(out.shape[0]):
        row = out[b]
        if incremental:
            for i in range(num_spans[b]):
                start = span_start[b, i]
                for k in range(span_len[b, i]):
                    row[start + k] = False
        else:
            zero(row)
        _set_legal_row(
            cells,
            heights,
            stacks,
            num_stacks,
            phase,
            to_move,
            num_pasture,
            pasture,
            on_border,
            b,
            tiles,
            cell_tiles,
            nbr,
            centre,
            code,
            near,
            row,
            span_start,
            span_len,
            num_spans,
        )


@njit(cache=True)
def _observe_kernel(seats, out, cells, heights, tiles_left, phase, pasture, num_pasture, n, square, canvas, nbr):
    lib = np.empty(cells.shape[1], dtype=np.int64)
    for b in range(seats.shape[0]):
        observe_into(
            cells[b],
            heights[b],
            tiles_left[b],
            phase[b],
            seats[b],
            n,
            pasture[b],
            num_pasture[b],
            square,
            canvas,
            nbr,
            lib,
            out[b],
        )


@njit(cache=True)
def _returns_kernel(cells, num_stacks, phase, to_move, n, splits, nbr, out):
    seen = np.empty(cells.shape[1], dtype=np.bool_)
    todo = np.empty(cells.shape[1], dtype=np.int64)
    for b in range(out.shape[0]):
        _returns_row(cells, num_stacks, phase, to_move, b, n, splits, nbr, seen, todo, out[b])


@njit(cache=True)
def _potential_kernel(cells, heights, stacks, num_stacks, n, nbr, out):
    """Pastures occupied + sheep that could still leave their pasture, per seat (rules.shaping_potential)."""
    for b in range(out.shape[0]):
        for s in range(n):
            total = num_stacks[b, s]
            for i in range(num_stacks[b, s]):
                c = stacks[b, s, i]
                if stack_can_move(cells[b], heights[b], nbr, c):
                    total += heights[b, c] - 1
            out[b, s] = total


# ----- the greedy baseline, compiled ----------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _open_count(cells, nbr, c):
    """Free pastures next to cell ``c`` (``cells``: one row)."""
    k = 0
    for d in range(6):
        j = nbr[c, d]
        if j >= 0 and cells[j] == EMPTY:
            k += 1
    return k


@njit(cache=True, inline="always")
def _live_sheep(cells, heights, stack_cells, count, nbr):
    """(sheep that can still move, open (stack, direction) pairs) of the seat whose stacks are
    ``stack_cells[:count]`` (baselines.live_sheep; ``cells``, ``heights``: one row)."""
    live = 0
    opens = 0
    for i in range(count):
        c = stack_cells[i]
        h = np.int64(heights[c])
        if h < 2:
            continue
        k = _open_count(cells, nbr, c)
        if k:
            live += h - 1
            opens += k
    return live, opens


@njit(cache=True)
def _score_moves(
    cells,
    heights,
    stacks,
    num_stacks,
    can_move,
    b,
    seat,
    n,
    splits,
    nbr,
    s_cells,
    s_num_stacks,
    s_phase,
    s_to_move,
    seen,
    todo,
    result,
    actions,
    scores,
):
    """Every legal move of ``seat`` (the mover of live row ``b``) into ``actions`` and its greedy score into
    ``scores`` (baselines.position_value of the position after it, for ``seat``); returns how many.

    The score is computed per (stack, direction) once for what the count of sheep does not change (the
    destination cell is taken whatever the count: the other seats' live sheep and open directions, the mover's
    other stacks, whether another seat can still move, the final result), then per count for the two stacks it
    does change; with the same float operations in the same order as position_value, so that scores equal there
    are equal here. ``s_cells`` ... ``s_to_move``: a one-row scratch position (for the final result);
    ``seen``, ``todo``, ``result``: scratch."""
    num_cells = cells.shape[1]
    s_cells[0] = cells[b]
    after = s_cells[0]
    for s in range(n):
        s_num_stacks[0, s] = num_stacks[b, s]
    s_num_stacks[0, seat] += 1
    count = 0
    for i in range(num_stacks[b, seat]):
        c = stacks[b, seat, i]
        h = np.int64(heights[b, c])
        if h < 2:
            continue
        for d in range(6):
            dest = slide(cells[b], nbr, c, d)
            if dest < 0:
                continue
            after[dest] = seat
            # what the count does not change: the others ...
            other_live = 0.0
            other_open = 0.0
            others = 0
            others_can = False
            next_live = 0
            for s in range(n):
                if s != seat:
                    live, opens = _live_sheep(after, heights[b], stacks[b, s], num_stacks[b, s], nbr)
                    other_live += live / (n - 1)
                    other_open += opens / (n - 1)
                    others += num_stacks[b, s]
                    if can_move[b, s] and live > 0:
                        others_can = True
                    if s == (seat + 1) % n:
                        next_live = live
            pastures = (num_stacks[b, seat] + 1) - others / (n - 1)
            # ... the mover's other stacks ...
            base_live = 0
            base_open = 0
            for m in range(num_stacks[b, seat]):
                o = stacks[b, seat, m]
                if o == c:
                    continue
                ho = np.int64(heights[b, o])
                if ho < 2:
                    continue
                ko = _open_count(after, nbr, o)
                if ko:
                    base_live += ho - 1
                    base_open += ko
            open_c = _open_count(after, nbr, c)
            open_dest = _open_count(after, nbr, dest)
            final = 0.0
            final_known = False
            for k in range(1, h):
                mine_live = base_live
                mine_open = base_open
                if h - k >= 2 and open_c:
                    mine_live += h - k - 1
                    mine_open += open_c
                if k >= 2 and open_dest:
                    mine_live += k - 1
                    mine_open += open_dest
                if splits:  # the next seat to move cannot: game over
                    over = next_live == 0
                else:  # nobody who may still move can (rules._advance_mover)
                    over = not others_can and not (can_move[b, seat] and mine_live > 0)
                if over:
                    if not final_known:
                        s_to_move[0] = (seat + 1) % n
                        _returns_row(s_cells, s_num_stacks, s_phase, s_to_move, 0, n, splits, nbr, seen, todo, result)
                        final = 1000.0 * result[seat]
                        final_known = True
                    scores[count] = final
                else:
                    scores[count] = 10.0 * (pastures + mine_live - other_live) + (mine_open - other_open)
                actions[count] = 4 * num_cells + (c * 6 + d) * MAX_MOVE + k - 1
                count += 1
            after[dest] = cells[b, dest]
    return count


@njit(cache=True)
def _greedy_scratch(num_cells, n):
    """Work arrays of the greedy kernels: actions, scores, best actions (one per legal action at most), the legal
    tiles' scratch (code, near, tile_ok), the final result's (seen, todo, result), and a one-row position after a
    move for the final result of moves that end the game (cells, num_stacks, phase, to_move)."""
    most = max(3 * num_cells, 6 * MAX_STACKS * MAX_MOVE)
    return (
        np.empty(most, dtype=np.int64),
        np.empty(most, dtype=np.float64),
        np.empty(most, dtype=np.int64),
        np.empty(num_cells, dtype=np.int8),
        np.empty(num_cells, dtype=np.int64),
        np.empty(3 * num_cells, dtype=np.bool_),
        np.empty(num_cells, dtype=np.bool_),
        np.empty(num_cells, dtype=np.int64),
        np.empty(n, dtype=np.float64),
        np.empty((1, num_cells), np.int8),
        np.empty((1, n), dtype=np.int64),
        np.full(1, OVER, dtype=np.int64),
        np.empty(1, dtype=np.int64),
    )


@njit(cache=True)
def _greedy_scores_row(
    cells,
    heights,
    stacks,
    num_stacks,
    phase,
    to_move,
    can_move,
    num_pasture,
    pasture,
    on_border,
    b,
    n,
    splits,
    tiles,
    cell_tiles,
    nbr,
    centre,
    scratch,
):
    """The legal actions of live row ``b``'s mover into ``scratch[0]`` and their greedy scores into ``scratch[1]``
    (baselines.greedy_scores: build, the pasture edges the tile touches; stack placement, the free cells in
    straight lines; moves, the position's live-sheep value after the move, :func:`_score_moves`); returns how
    many."""
    (actions, scores, _, code, near, tile_ok, seen, todo, result, s_cells, s_num_stacks, s_phase, s_to_move) = scratch
    num_cells = cells.shape[1]
    ph = phase[b]
    if ph == BUILD:
        count = _legal_tile_list(
            cells, num_pasture, pasture, b, tiles, cell_tiles, nbr, centre, code, near, tile_ok, actions
        )
        for i in range(count):
            score = 0
            for e in range(4):
                c = tiles[actions[i], e]
                for d in range(6):
                    j = nbr[c, d]
                    if j >= 0 and cells[b, j] != NO_PASTURE:
                        score += 1
            scores[i] = score
        return count
    if ph == PLACE:
        count = 0
        for c in range(num_cells):
            if on_border[b, c] and cells[b, c] == EMPTY:
                reach = 0
                for d in range(6):
                    j = nbr[c, d]
                    while j >= 0 and cells[b, j] == EMPTY:
                        reach += 1
                        j = nbr[j, d]
                actions[count] = 3 * num_cells + c
                scores[count] = reach
                count += 1
        return count
    if ph == MOVE:
        return _score_moves(
            cells,
            heights,
            stacks,
            num_stacks,
            can_move,
            b,
            to_move[b],
            n,
            splits,
            nbr,
            s_cells,
            s_num_stacks,
            s_phase,
            s_to_move,
            seen,
            todo,
            result,
            actions,
            scores,
        )
    return 0


@njit(cache=True)
def _greedy_kernel(
    out,
    rng,
    cells,
    heights,
    stacks,
    num_stacks,
    phase,
    to_move,
    can_move,
    num_pasture,
    pasture,
    on_border,
    n,
    splits,
    tiles,
    cell_tiles,
    nbr,
    centre,
):
    """baselines.GreedyPolicy's action for the mover of every row into ``out`` (-1 where the game is over): one of
    the best-scoring legal actions (:func:`_greedy_scores_row`), drawn from the row's generator when several
    tie (no draw otherwise)."""
    scratch = _greedy_scratch(cells.shape[1], n)
    actions, scores, best = scratch[0], scratch[1], scratch[2]
    for b in range(out.shape[0]):
        count = _greedy_scores_row(
            cells,
            heights,
            stacks,
            num_stacks,
            phase,
            to_move,
            can_move,
            num_pasture,
            pasture,
            on_border,
            b,
            n,
            splits,
            tiles,
            cell_tiles,
            nbr,
            centre,
            scratch,
        )
        if count == 0:  # over (or, never in a live position, no legal action)
            out[b] = -1
            continue
        top = scores[0]
        for i in range(1, count):
            if scores[i] > top:
                top = scores[i]
        num_best = 0
        for i in range(count):
            if scores[i] == top:
                # keep the tied actions in id order (moves come in stack order)
                a = actions[i]
                j = num_best
                while j > 0 and best[j - 1] > a:
                    best[j] = best[j - 1]
                    j -= 1
                best[j] = a
                num_best += 1
        out[b] = best[0] if num_best == 1 else best[below(rng, b, num_best)]


@njit(cache=True)
def _greedy_scores_kernel(
    row,
    cells,
    heights,
    stacks,
    num_stacks,
    phase,
    to_move,
    can_move,
    num_pasture,
    pasture,
    on_border,
    n,
    splits,
    tiles,
    cell_tiles,
    nbr,
    centre,
):
    scratch = _greedy_scratch(cells.shape[1], n)
    count = _greedy_scores_row(
        cells,
        heights,
        stacks,
        num_stacks,
        phase,
        to_move,
        can_move,
        num_pasture,
        pasture,
        on_border,
        row,
        n,
        splits,
        tiles,
        cell_tiles,
        nbr,
        centre,
        scratch,
    )
    return scratch[0][:count].copy(), scratch[1][:count].copy()


# ----- the batched game ----------------------------------------------------------------------------------------------
class BattleSheepBatched(BatchedGame):
    """Battle Sheep over B games at once (module docstring). Options as ``rules.BattleSheepGame``."""

    name = "battle_sheep"

    def __init__(
        self,
        num_players: int = 2,
        pasture: str = "build",
        end_rule: str = "battle_sheep",
        canvas_radius: int | None = None,
    ):
        ref = BattleSheepGame(
            num_players=num_players, pasture=pasture, end_rule=end_rule, canvas_radius=canvas_radius
        )  # ConfigError for bad options
        self.reference = ref
        self.num_players = ref.num_players
        self.num_actions = ref.num_actions
        self.observation_shape = ref.observation_shape
        self.max_game_length = ref.max_game_length
        self.num_cells = ref.grid.num_cells
        self.radius = ref.canvas_radius
        self.splits = ref.end_rule == "splits"
        self.random_pasture = ref.pasture_mode == "random"
        self.total_tiles = ref.total_tiles
        self.tables = ref.tables
        self._mask_out: np.ndarray | None = None
        """The array the last legal_mask call wrote, and the spans it set per row (see :meth:`legal_mask`)."""
        self._spans = (
            np.zeros((0, MAX_SPANS), dtype=np.int64),
            np.zeros((0, MAX_SPANS), dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )

    def options(self) -> dict[str, Any]:
        """The options, as the reference game reports them."""
        return self.reference.options()

    # ----- state -----------------------------------------------------------------------------------------------
    def new_state(self, batch: int) -> BattleSheepBatchedState:
        """Zeroed state for ``batch`` games (call :meth:`reset_rows` before use)."""
        n, cells = self.num_players, self.num_cells

        def ints(*shape: int) -> np.ndarray:
            return np.zeros((batch, *shape), dtype=np.int64)

        return BattleSheepBatchedState(
            cells=np.full((batch, cells), NO_PASTURE, dtype=np.int8),
            heights=np.zeros((batch, cells), np.int8),
            stacks=ints(n, MAX_STACKS),
            num_stacks=ints(n),
            tiles_left=np.zeros((batch, n), np.int8),
            phase=ints(),
            to_move=ints(),
            stacks_placed=ints(),
            can_move=np.ones((batch, n), dtype=bool),
            num_pasture=ints(),
            pasture=ints(4 * self.total_tiles),
            extent=ints(6),
            on_border=np.zeros((batch, cells), dtype=bool),
            plies=ints(),
            last_action=ints(),
            rng=np.zeros(batch, dtype=np.uint64),
        )

    def _rules(self, s: BattleSheepBatchedState) -> tuple:
        """The fields the rule kernels take, in their order."""
        return (
            s.cells,
            s.heights,
            s.stacks,
            s.num_stacks,
            s.tiles_left,
            s.phase,
            s.to_move,
            s.stacks_placed,
            s.can_move,
            s.num_pasture,
            s.pasture,
            s.extent,
            s.on_border,
            s.plies,
            s.last_action,
        )

    def _geometry(self) -> tuple:
        t = self.tables
        return t.tiles, t.nbr, t.q, t.r, t.cell_at, self.radius

    def reset_rows(self, state: BattleSheepBatchedState, rows: np.ndarray) -> None:
        """New games in ``rows`` (pasture="random": built from each row's generator)."""
        t = self.tables
        _reset_kernel(
            np.asarray(rows, dtype=np.int64),
            *self._rules(state),
            state.rng,
            self.num_players,
            self.splits,
            self.total_tiles,
            self.random_pasture,
            t.tiles,
            t.cell_tiles,
            t.nbr,
            t.q,
            t.r,
            t.cell_at,
            self.radius,
            t.centre,
        )

    def legal_mask(self, state: BattleSheepBatchedState, out: np.ndarray) -> None:
        """The mover's legal mask per row (zeros when over) into ``out``.

        When ``out`` is the array of the previous call, only the entries that call may have set are cleared before
        the new ones are set (not the whole 94N-entry row): so ``out`` must not be changed in between by anything
        else (``VectorEnv.action_mask``: "do not modify"). Any other array is written whole."""
        s, t = state, self.tables
        incremental = out is self._mask_out and out.shape[0] == self._spans[2].shape[0]
        if not incremental:
            rows = out.shape[0]
            self._spans = (
                np.zeros((rows, MAX_SPANS), dtype=np.int64),
                np.zeros((rows, MAX_SPANS), dtype=np.int64),
                np.zeros(rows, dtype=np.int64),
            )
        self._mask_out = None  # not trusted while the kernel writes (an exception midway leaves it unknown)
        _legal_kernel(
            out,
            incremental,
            *self._spans,
            s.cells,
            s.heights,
            s.stacks,
            s.num_stacks,
            s.phase,
            s.to_move,
            s.num_pasture,
            s.pasture,
            s.on_border,
            t.tiles,
            t.cell_tiles,
            t.nbr,
            t.centre,
        )
        self._mask_out = out

    def apply(self, state: BattleSheepBatchedState, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal) in every live row."""
        _apply_kernel(
            np.asarray(actions, dtype=np.int64),
            *self._rules(state),
            self.num_players,
            self.splits,
            self.total_tiles,
            *self._geometry(),
        )

    def observe(self, state: BattleSheepBatchedState, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b``'s observation from seat ``seats[b]`` into ``out[b]``."""
        seats = np.asarray(seats, dtype=np.int64)
        if seats.shape != (out.shape[0],) or (seats.size and (seats.min() < 0 or seats.max() >= self.num_players)):
            raise ValueError(f"seats must be {out.shape[0]} seats from 0 to {self.num_players - 1}")
        s, t = state, self.tables
        _observe_kernel(
            seats,
            out.reshape(out.shape[0], self.observation_shape[0], -1),
            s.cells,
            s.heights,
            s.tiles_left,
            s.phase,
            s.pasture,
            s.num_pasture,
            self.num_players,
            t.square,
            t.canvas,
            t.nbr,
        )

    def current_player(self, state: BattleSheepBatchedState) -> np.ndarray:
        """Seat to move per row, TERMINAL once the game is over."""
        return np.where(state.phase == OVER, TERMINAL, state.to_move)

    def returns(self, state: BattleSheepBatchedState) -> np.ndarray:
        """(B, n) terminal rewards, zeros while live."""
        out = np.empty((state.phase.shape[0], self.num_players), dtype=np.float64)
        _returns_kernel(
            state.cells,
            state.num_stacks,
            state.phase,
            state.to_move,
            self.num_players,
            self.splits,
            self.tables.nbr,
            out,
        )
        return out

    def truncated(self, state: BattleSheepBatchedState) -> np.ndarray:
        """The AEC env's ply cap on a live game (a game always ends before it: every move fills a pasture)."""
        return (state.phase != OVER) & (state.plies >= self.max_game_length)

    def scores(self, state: BattleSheepBatchedState) -> np.ndarray:
        """(B, n) pastures occupied (rules.scores)."""
        return state.num_stacks.astype(np.float64)

    def shaping_potential(self, state: BattleSheepBatchedState) -> np.ndarray:
        """(B, n) pastures occupied + sheep that can still leave their pasture (rules.shaping_potential)."""
        out = np.empty((state.phase.shape[0], self.num_players), dtype=np.float64)
        _potential_kernel(
            state.cells, state.heights, state.stacks, state.num_stacks, self.num_players, self.tables.nbr, out
        )
        return out

    # ----- the greedy baseline -------------------------------------------------------------------------------
    has_greedy_actions = True

    def greedy_actions(self, state: BattleSheepBatchedState, rng: np.ndarray, out: np.ndarray) -> None:
        """The ``greedy`` baseline's action (``baselines.GreedyPolicy``) for the mover of every row into ``out``
        (int64, -1 where the game is over), compiled: the same scores, so the same choice where one action scores
        best; among tied best actions one drawn from ``rng[b]`` (uint64 SplitMix64 states, one per row, advanced
        in place; no draw without a tie). ``state`` is not changed."""
        batch = state.phase.shape[0]
        if out.shape != (batch,) or out.dtype != np.int64:
            raise ValueError(f"out must be an int64 array of shape ({batch},), got {out.dtype} {out.shape}")
        if rng.shape != (batch,) or rng.dtype != np.uint64:
            raise ValueError(f"rng must be a uint64 array of shape ({batch},), got {rng.dtype} {rng.shape}")
        t = self.tables
        _greedy_kernel(
            out, rng, *self._greedy_fields(state), self.num_players, self.splits, t.tiles, t.cell_tiles, t.nbr, t.centre
        )

    def greedy_scores(self, state: BattleSheepBatchedState, row: int) -> tuple[np.ndarray, np.ndarray]:
        """(legal actions in id order, greedy scores) of row ``row``'s mover, as :meth:`greedy_actions` scores them
        (empty when the game is over): ``baselines.greedy_scores`` compiled, for tests and inspection."""
        if not 0 <= row < state.phase.shape[0]:
            raise ValueError(f"row {row} is not a row of this {state.phase.shape[0]}-row state")
        t = self.tables
        actions, scores = _greedy_scores_kernel(
            int(row), *self._greedy_fields(state), self.num_players, self.splits, t.tiles, t.cell_tiles, t.nbr, t.centre
        )
        order = np.argsort(actions, kind="stable")  # moves are scored in stack order: in id order, as the reference
        return actions[order], scores[order]

    @staticmethod
    def _greedy_fields(s: BattleSheepBatchedState) -> tuple:
        return (
            s.cells,
            s.heights,
            s.stacks,
            s.num_stacks,
            s.phase,
            s.to_move,
            s.can_move,
            s.num_pasture,
            s.pasture,
            s.on_border,
        )

    # ----- the bridge to rules.py ----------------------------------------------------------------------------
    def to_reference(self, state: BattleSheepBatchedState, row: int) -> BattleSheepState:
        """Row ``row`` as a ``rules.BattleSheepState`` (its generator is not carried over)."""
        n = self.num_players
        s = BattleSheepState(n, self.num_cells)
        s.phase = int(state.phase[row])
        s.to_move = int(state.to_move[row])
        s.cells = array("b", state.cells[row].tobytes())
        s.heights = array("b", state.heights[row].tobytes())
        s.stacks = [state.stacks[row, seat, : state.num_stacks[row, seat]].tolist() for seat in range(n)]
        s.tiles_left = state.tiles_left[row].tolist()
        s.stacks_placed = int(state.stacks_placed[row])
        s.can_move = state.can_move[row].tolist()
        s.num_pasture = int(state.num_pasture[row])
        s.pasture = state.pasture[row, : s.num_pasture].tolist()
        s.extent = tuple(int(x) for x in state.extent[row]) if s.num_pasture else None
        s.plies = int(state.plies[row])
        s.last_action = int(state.last_action[row])
        s.border = tuple(int(c) for c in np.flatnonzero(state.on_border[row])) if s.phase != BUILD else ()
        return s

    def from_reference(self, reference_state: BattleSheepState, state: BattleSheepBatchedState, row: int) -> None:
        """Write a ``rules.BattleSheepState`` into row ``row`` (its generator kept)."""
        ref, s = self.reference, reference_state
        state.phase[row] = s.phase
        state.to_move[row] = s.to_move
        state.cells[row] = np.frombuffer(array("b", s.cells), dtype=np.int8)
        state.heights[row] = np.frombuffer(array("b", s.heights), dtype=np.int8)
        state.num_stacks[row] = [len(cells) for cells in s.stacks]
        state.stacks[row] = 0
        for seat, cells in enumerate(s.stacks):
            state.stacks[row, seat, : len(cells)] = cells
        state.tiles_left[row] = s.tiles_left
        state.stacks_placed[row] = s.stacks_placed
        state.can_move[row] = s.can_move
        state.num_pasture[row] = s.num_pasture
        state.pasture[row] = 0
        state.pasture[row, : len(s.pasture)] = s.pasture
        state.extent[row] = s.extent if s.extent is not None else (ref.extent(s.pasture) if s.pasture else (0,) * 6)
        state.on_border[row] = False
        if s.phase != BUILD:
            state.on_border[row, list(ref.outer_border(s) if not s.border else s.border)] = True
        state.plies[row] = s.plies
        state.last_action[row] = s.last_action
