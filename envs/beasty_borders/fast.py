"""Beasty Borders, batched and compiled: B games per call on struct-of-arrays state, numba kernels.

:class:`BeastyBordersBatch` is the :class:`~envs.common.vector.BatchedGame` of this game (every option of
``rules.BeastyBordersGame``: ``variant``, ``path_order``), built for speed rather than reading: ``rules.py`` stays
the readable reference, and ``tests/beasty_borders/test_beasty_borders_fast.py`` checks that both engines give
identical legal masks, observations (every seat's), rewards and results over thousands of random games.

State (:class:`BordersBatchState`, first axis = game): the landscape's cell codes (as ``rules.py``: 0 empty green,
1 lake, 2 empty-space marker, 3 + 3 * seat + type an animal), the tiles, the steps-marker, roll, roller, phase,
the variant's choice and bidding row, supplies and animals placed, plies played, and kept up to date by every
placement: the group of each animal (``label``: a cell of its group, the group's size in ``group_size`` at that
cell), each seat's victory points and the number of empty green spaces. ``rng`` is each game's own SplitMix64
generator (:mod:`envs.common.fastrng`): the die rolls and tile shuffles are drawn from it, so they are *not* the
streams ``rules.py`` draws from a numpy generator with the same seed (the differential tests copy the rolls and
tiles from one engine to the other).

The ``search`` baseline's kernels live here too (``baselines.BordersMCTS`` calls them):
:meth:`BeastyBordersBatch.search` runs its whole UCT search on two rows (the root and a simulation's scratch),
:meth:`~BeastyBordersBatch.playout` plays a row to the end with the greedy playout rule
(``baselines.greedy_rollout``), and :meth:`~BeastyBordersBatch.greedy_actions` is ``baselines.greedy_choice``.

Tables the kernels read as globals (``GROUP_VP``, the cell codes) are frozen into numba's on-disk cache, which
only watches this file: after editing them elsewhere, touch this file (or clear its ``__pycache__``). The greedy
rule's tuned weights are passed in as arguments for that reason.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, uint64

from envs.beasty_borders import actions as act
from envs.beasty_borders import greedy_weights
from envs.beasty_borders.kernels import observe_row, rebuild_groups
from envs.beasty_borders.observation import EMPTY, FIRST_ANIMAL, GROUP_VP, LAKE, MARKER
from envs.beasty_borders.rules import ROLLER_CHOICE, BeastyBordersGame, BeastyBordersState
from envs.beasty_borders.tiles import SIGNPOST_TILE, TILE_COLS, TILE_ROWS, TILES, tile_lakes
from envs.common.fastrng import below, next_u64
from envs.common.fastsearch import untried_choice
from envs.common.game import TERMINAL
from envs.common.vector import BatchedGame

_GROUP_VP = np.array(GROUP_VP, dtype=np.int64)
_TOP = len(GROUP_VP) - 1
_TILE_LAKE = np.array(
    [
        [1 if (r, c) in tile_lakes(t) else 0 for r in range(TILE_ROWS) for c in range(TILE_COLS)]
        for t in range(len(TILES))
    ],
    dtype=np.int8,
)
"""_TILE_LAKE[tile, k]: 1 where space k (row-major in the 2 x 3 tile) of ``tile`` is a lake."""
_ROW_OWNER = np.array(act.ROW_OWNER, dtype=np.int64)
_ROW_TYPE = np.array(act.ROW_TYPE, dtype=np.int64)


class BordersBatchState(NamedTuple):
    """B Beasty Borders games; row ``b`` of every field is game ``b`` (see the module docstring)."""

    board: np.ndarray  # (B, cells) int8 cell codes
    tiles: np.ndarray  # (B, num_tiles) int8 tile id per grid slot
    pos: np.ndarray  # (B,) int64 steps-marker cell
    roll: np.ndarray  # (B,) int64 this turn's die roll 1..8
    roller: np.ndarray  # (B,) int64
    phase: np.ndarray  # (B,) int64 ROLLER_CHOICE / RESPONDER_CHOICE
    choice: np.ndarray  # (B,) int64 variant: the roller's figure (row index), -1 for a pass / none yet
    remaining: np.ndarray  # (B, 2, 3) int64 figures held per seat and type (variant: still in the row)
    placed: np.ndarray  # (B, 2) int64 animals placed per seat
    row: np.ndarray  # (B, 28) bool variant: figure still in the bidding row (main: unused, all False)
    plies: np.ndarray  # (B,) int64 decisions played (the AEC env's truncation count)
    empty_count: np.ndarray  # (B,) int64 empty green spaces (0: the game is over)
    label: np.ndarray  # (B, cells) int8 the group of each animal (a cell of it), -1 elsewhere
    group_size: np.ndarray  # (B, cells) int8 size of the group labelled by that cell
    vp: np.ndarray  # (B, 2) int64 victory points per seat
    rng: np.ndarray  # (B,) uint64 the game's SplitMix64 generator


# ----- kernels on one row ---------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _mover(roller: int, phase: int) -> int:
    return roller if phase == ROLLER_CHOICE else 1 - roller


@njit(cache=True)
def _target_cell(board, path, rank, pos, steps, empty_count):
    """The ``steps``-th empty green space after ``pos`` along the cyclic path (rules.target_cell): the empty
    spaces after it, then ``pos`` itself if empty (reached only after a full lap); counting runs round."""
    k = (steps - 1) % empty_count
    cells = path.shape[0]
    start = rank[pos]
    for i in range(1, cells + 1):
        cell = path[(start + i) % cells]
        if board[cell] == EMPTY:
            if k == 0:
                return cell
            k -= 1
    return pos  # unreachable while empty_count counts the empty spaces


@njit(cache=True)
def _roll(board, path, rank, pos, empty_count, rng, b):
    """(roll, new marker cell): the D8 from row ``b``'s generator and the marker's move."""
    roll = 1 + below(rng, b, 8)
    return roll, _target_cell(board, path, rank, pos, roll, empty_count)


@njit(cache=True)
def _fill(board, label, group_size, vp, nbr, cell, code):
    """Put ``code`` on ``cell`` (row views) and keep groups and victory points up to date (a marker changes
    no group; an animal joins the groups of its code next to it, which merge under its own cell's label)."""
    board[cell] = code
    if code < FIRST_ANIMAL:
        return
    # The distinct groups of this code next to the cell (at most 4), found before any relabelling.
    g0 = g1 = g2 = g3 = -1
    total = 1
    lost = 0
    for i in range(4):
        nb = nbr[cell, i]
        if nb < 0:
            break
        if board[nb] != code:
            continue
        g = label[nb]
        if g == g0 or g == g1 or g == g2:
            continue
        if g0 < 0:
            g0 = g
        elif g1 < 0:
            g1 = g
        elif g2 < 0:
            g2 = g
        else:
            g3 = g
        total += group_size[g]
        lost += _GROUP_VP[group_size[g]]
    if g0 >= 0:
        for c in range(board.shape[0]):
            g = label[c]
            if g >= 0 and (g == g0 or g == g1 or g == g2 or g == g3):
                label[c] = cell
    label[cell] = cell
    group_size[cell] = total
    vp[(code - FIRST_ANIMAL) // 3] += _GROUP_VP[min(total, _TOP)] - lost


@njit(cache=True)
def _next_turn(st_board, st_pos, st_roll, st_roller, st_phase, st_choice, st_empty, rng, path, rank, b, roller):
    """Start the next turn with ``roller`` rolling, unless the landscape is full (rules._next_turn)."""
    st_phase[b] = ROLLER_CHOICE
    st_choice[b] = -1
    st_roller[b] = roller
    if st_empty[b] > 0:
        roll, cell = _roll(st_board[b], path, rank, st_pos[b], st_empty[b], rng, b)
        st_roll[b] = roll
        st_pos[b] = cell


@njit(cache=True)
def _apply_row(
    board,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    placed,
    row,
    plies,
    empty_count,
    label,
    group_size,
    vp,
    rng,
    b,
    action,
    luck,
    pass_action,
    path,
    rank,
    nbr,
):
    """Play ``action`` (legal) for the mover of live row ``b`` (rules.apply)."""
    plies[b] += 1
    r = roller[b]
    seat = _mover(r, phase[b])
    passed = action == pass_action
    if luck:
        if phase[b] == ROLLER_CHOICE:
            if passed:
                phase[b] = 1
                return
            _fill(board[b], label[b], group_size[b], vp[b], nbr, pos[b], FIRST_ANIMAL + 3 * seat + action)
            remaining[b, seat, action] -= 1
            placed[b, seat] += 1
            empty_count[b] -= 1
            _next_turn(board, pos, roll, roller, phase, choice, empty_count, rng, path, rank, b, 1 - r)
            return
        if passed:
            _fill(board[b], label[b], group_size[b], vp[b], nbr, pos[b], MARKER)
        else:
            _fill(board[b], label[b], group_size[b], vp[b], nbr, pos[b], FIRST_ANIMAL + 3 * seat + action)
            remaining[b, seat, action] -= 1
            placed[b, seat] += 1
        empty_count[b] -= 1
        _next_turn(board, pos, roll, roller, phase, choice, empty_count, rng, path, rank, b, r)
        return
    if phase[b] == ROLLER_CHOICE:
        choice[b] = -1 if passed else action
        phase[b] = 1
        return
    figure = choice[b] if passed else action
    if figure < 0:
        _fill(board[b], label[b], group_size[b], vp[b], nbr, pos[b], MARKER)
    else:
        owner = _ROW_OWNER[figure]
        kind = _ROW_TYPE[figure]
        row[b, figure] = False
        _fill(board[b], label[b], group_size[b], vp[b], nbr, pos[b], FIRST_ANIMAL + 3 * owner + kind)
        remaining[b, owner, kind] -= 1
        placed[b, owner] += 1
    empty_count[b] -= 1
    _next_turn(board, pos, roll, roller, phase, choice, empty_count, rng, path, rank, b, 1 - r)


@njit(cache=True, inline="always")
def _legal_row(remaining, row, roller, phase, choice, empty_count, b, luck, types, row_owner, out, ob):
    """Row ``b``'s legal mask into ``out[ob]`` (rules.legal_mask)."""
    n = out.shape[1]
    for a in range(n):
        out[ob, a] = False
    if empty_count[b] == 0:
        return
    seat = _mover(roller[b], phase[b])
    if luck:
        for t in range(types):
            out[ob, t] = remaining[b, seat, t] > 0
        out[ob, types] = True
        return
    low = choice[b] if phase[b] == 1 else -1
    for i in range(low + 1, n - 1):
        out[ob, i] = row[b, i] and row_owner[i] == seat
    out[ob, n - 1] = True


# ----- kernels over the batch ---------------------------------------------------------------------------------------
@njit(cache=True)
def _reset_kernel(
    rows,
    board,
    tiles,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    placed,
    row,
    plies,
    empty_count,
    label,
    group_size,
    vp,
    rng,
    luck,
    counts,
    slot_cells,
    tile_lake,
    path,
    rank,
):
    """Start a new game in each of ``rows`` (rules.initial_state): shuffle the tiles (variant: the signpost tile
    and 5 of the other 8), lay the lakes, marker on the signpost, full supplies, the first roll."""
    num_tiles = tiles.shape[1]
    pool = np.empty(tile_lake.shape[0], dtype=np.int64)
    for rr in range(rows.shape[0]):
        b = rows[rr]
        for t in range(pool.shape[0]):
            pool[t] = t
        pool[0], pool[SIGNPOST_TILE] = SIGNPOST_TILE, 0
        if luck:
            for i in range(num_tiles - 1, 0, -1):
                j = below(rng, b, i + 1)
                pool[i], pool[j] = pool[j], pool[i]
        else:
            # The signpost tile (pool[0]) and 5 of tiles 1..8 (a partial Fisher-Yates over pool[1:]), then the 6
            # shuffled over the slots.
            others = pool.shape[0] - 1
            for i in range(num_tiles - 1):
                j = i + below(rng, b, others - i)
                pool[1 + i], pool[1 + j] = pool[1 + j], pool[1 + i]
            for i in range(num_tiles - 1, 0, -1):
                j = below(rng, b, i + 1)
                pool[i], pool[j] = pool[j], pool[i]
        count = 0
        sign = 0
        for s in range(num_tiles):
            tile = pool[s]
            tiles[b, s] = tile
            for k in range(slot_cells.shape[1]):
                cell = slot_cells[s, k]
                if tile_lake[tile, k]:
                    board[b, cell] = LAKE
                else:
                    board[b, cell] = EMPTY
                    count += 1
            if tile == SIGNPOST_TILE:
                sign = slot_cells[s, 0]
        for seat in range(2):
            placed[b, seat] = 0
            vp[b, seat] = 0
            for t in range(remaining.shape[2]):
                remaining[b, seat, t] = counts[t] if t < counts.shape[0] else 0
        row[b, :] = not luck
        label[b, :] = -1
        group_size[b, :] = 0
        plies[b] = 0
        empty_count[b] = count
        roller[b] = 0
        phase[b] = ROLLER_CHOICE
        choice[b] = -1
        r, cell = _roll(board[b], path, rank, sign, count, rng, b)
        roll[b] = r
        pos[b] = cell


@njit(cache=True)
def _apply_kernel(
    actions,
    board,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    placed,
    row,
    plies,
    empty_count,
    label,
    group_size,
    vp,
    rng,
    luck,
    pass_action,
    path,
    rank,
    nbr,
):
    for b in range(actions.shape[0]):
        if empty_count[b] > 0:
            _apply_row(
                board,
                pos,
                roll,
                roller,
                phase,
                choice,
                remaining,
                placed,
                row,
                plies,
                empty_count,
                label,
                group_size,
                vp,
                rng,
                b,
                actions[b],
                luck,
                pass_action,
                path,
                rank,
                nbr,
            )


@njit(cache=True)
def _observe_kernel(
    seats,
    out,
    board,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    row,
    empty_count,
    label,
    group_size,
    vp,
    lay,
    planes,
    slots,
    path,
    rank,
    nbr4,
    row_owner,
):
    for b in range(seats.shape[0]):
        observe_row(
            board,
            pos,
            roll,
            roller,
            phase,
            choice,
            remaining,
            row,
            empty_count,
            label,
            group_size,
            vp,
            b,
            seats[b],
            out,
            lay,
            planes,
            slots,
            path,
            rank,
            nbr4,
            row_owner,
        )


@njit(cache=True)
def _legal_kernel(out, remaining, row, roller, phase, choice, empty_count, luck, types, row_owner):
    for b in range(out.shape[0]):
        _legal_row(remaining, row, roller, phase, choice, empty_count, b, luck, types, row_owner, out, b)


@njit(cache=True)
def _current_player_kernel(roller, phase, empty_count, out):
    for b in range(out.shape[0]):
        out[b] = TERMINAL if empty_count[b] == 0 else _mover(roller[b], phase[b])


@njit(cache=True)
def _returns_kernel(vp, placed, empty_count, out):
    """+1 / -1 / 0 over the keys (victory points, animals placed) once over (rules.returns); zeros while live."""
    for b in range(out.shape[0]):
        out[b, 0] = 0.0
        out[b, 1] = 0.0
        if empty_count[b] > 0:
            continue
        d = vp[b, 0] - vp[b, 1]
        if d == 0:
            d = placed[b, 0] - placed[b, 1]
        if d > 0:
            out[b, 0], out[b, 1] = 1.0, -1.0
        elif d < 0:
            out[b, 0], out[b, 1] = -1.0, 1.0


# ----- the search baseline: greedy playouts (baselines.greedy_rollout) and the UCT search, compiled -----------------
@njit(cache=True, inline="always")
def _uniform(rng, b):
    """A float in [0, 1) from row ``b``'s generator (the top 53 bits)."""
    return float(next_u64(rng, b) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _merge_gain(bd, label, group_size, nbr, cell, code):
    """(victory points gained by an animal ``code`` on ``cell``, whether any group of ``code`` is next to it):
    baselines.merge_gain of the distinct neighbouring groups' sizes."""
    total = 0
    vps = 0
    for i in range(4):
        nb = nbr[cell, i]
        if nb < 0:
            break
        if bd[nb] != code:
            continue
        g = label[nb]
        seen = False
        for j in range(i):
            other = nbr[cell, j]
            if bd[other] == code and label[other] == g:
                seen = True
        if not seen:
            total += group_size[g]
            vps += _GROUP_VP[group_size[g]]
    if total == 0:
        return 0, False
    return _GROUP_VP[min(1 + total, _TOP)] - vps, True


@njit(cache=True)
def _greedy_action(
    board,
    pos,
    phase,
    choice,
    remaining,
    row,
    label,
    group_size,
    rng,
    b,
    seat,
    luck,
    types,
    pass_action,
    nbr,
    row_owner,
    row_type,
    values,
    greedy,
):
    """baselines.greedy_choice for ``seat`` (the mover) in live row ``b``; ties broken with the row's generator
    (``values``: scratch of 3 floats; ``greedy``: the rule's weights DENY, POTENTIAL, PASS_BELOW,
    PASS_BELOW_RESPONDER, passed in so that a cached kernel never keeps stale ones)."""
    bd = board[b]
    lb = label[b]
    gs = group_size[b]
    cell = pos[b]
    opp = 1 - seat
    deny = 0
    for k in range(types):
        if remaining[b, opp, k] > 0:
            gain, near = _merge_gain(bd, lb, gs, nbr, cell, FIRST_ANIMAL + 3 * opp + k)
            if near and gain > deny:
                deny = gain
    room = 0
    for i in range(4):
        nb = nbr[cell, i]
        if nb < 0:
            break
        if bd[nb] == EMPTY:
            room += 1
    best = -1e300
    any_held = False
    for k in range(types):
        rem = remaining[b, seat, k]
        if rem <= 0:
            continue
        any_held = True
        grow = room if rem > 1 else 0
        gain, near = _merge_gain(bd, lb, gs, nbr, cell, FIRST_ANIMAL + 3 * seat + k)
        v = gain + greedy[0] * deny + greedy[1] * grow + 0.01 * rem
        values[k] = v
        if v > best:
            best = v
    if not any_held:
        return pass_action
    if best <= (greedy[2] if phase[b] == ROLLER_CHOICE else greedy[3]):
        return pass_action
    ties = 0
    for k in range(types):
        if remaining[b, seat, k] > 0 and values[k] >= best - 1e-9:
            ties += 1
    pick = below(rng, b, ties) if ties > 1 else 0
    kind = -1
    for k in range(types):
        if remaining[b, seat, k] > 0 and values[k] >= best - 1e-9:
            if pick == 0:
                kind = k
                break
            pick -= 1
    if luck:
        return kind
    low = choice[b] if phase[b] == 1 else -1
    first = -1
    last = -1
    for i in range(low + 1, row_owner.shape[0]):
        if row[b, i] and row_owner[i] == seat and row_type[i] == kind:
            if first < 0:
                first = i
            last = i
    if first < 0:
        return pass_action
    if phase[b] == ROLLER_CHOICE and best >= 2.0:
        return last
    return first


@njit(cache=True, nogil=True)  # nogil: the web app searches in a worker thread and answers other games meanwhile
def _playout_kernel(
    b,
    max_depth,
    epsilon,
    board,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    placed,
    row,
    plies,
    empty_count,
    label,
    group_size,
    vp,
    rng,
    luck,
    types,
    pass_action,
    path,
    rank,
    nbr,
    row_owner,
    row_type,
    greedy,
):
    """Play row ``b`` on with baselines.greedy_rollout until the game ends or ``max_depth`` plies (< 0: no cut);
    returns the plies played."""
    mask = np.zeros((1, pass_action + 1), dtype=np.bool_)
    values = np.empty(3, dtype=np.float64)
    depth = 0
    while empty_count[b] > 0:
        if max_depth >= 0 and depth >= max_depth:
            break
        _legal_row(remaining, row, roller, phase, choice, empty_count, b, luck, types, row_owner, mask, 0)
        count = 0
        for a in range(mask.shape[1]):
            if mask[0, a]:
                count += 1
        if count == 1:
            action = pass_action
        elif _uniform(rng, b) < epsilon:
            k = below(rng, b, count)
            action = -1
            for a in range(mask.shape[1]):
                if mask[0, a]:
                    if k == 0:
                        action = a
                        break
                    k -= 1
        else:
            seat = _mover(roller[b], phase[b])
            action = _greedy_action(
                board,
                pos,
                phase,
                choice,
                remaining,
                row,
                label,
                group_size,
                rng,
                b,
                seat,
                luck,
                types,
                pass_action,
                nbr,
                row_owner,
                row_type,
                values,
                greedy,
            )
        _apply_row(
            board,
            pos,
            roll,
            roller,
            phase,
            choice,
            remaining,
            placed,
            row,
            plies,
            empty_count,
            label,
            group_size,
            vp,
            rng,
            b,
            action,
            luck,
            pass_action,
            path,
            rank,
            nbr,
        )
        depth += 1
    return depth


@njit(cache=True)
def _candidates(remaining, row, roller, phase, choice, empty_count, b, luck, types, row_owner, row_type, mask, out):
    """The actions the search tree considers in live row ``b`` into ``out``; returns how many: every legal action
    (main), or per type the lowest and the highest legal figure, then pass (variant: baselines.variant_candidates).
    ``mask``: scratch (1, num_actions)."""
    _legal_row(remaining, row, roller, phase, choice, empty_count, b, luck, types, row_owner, mask, 0)
    actions = mask.shape[1]
    n = 0
    if luck:
        for a in range(actions):
            if mask[0, a]:
                out[n] = a
                n += 1
        return n
    for k in range(types):
        first = -1
        last = -1
        for a in range(actions - 1):
            if mask[0, a] and row_type[a] == k:
                if first < 0:
                    first = a
                last = a
        if first >= 0:
            out[n] = first
            n += 1
            if last != first:
                out[n] = last
                n += 1
    out[n] = actions - 1
    return n + 1


@njit(cache=True)
def _copy_row(
    src, dst, board, pos, roll, roller, phase, choice, remaining, placed, row, plies, empty_count, label, group_size, vp
):
    """Row ``src`` of every field but the generator into row ``dst``."""
    board[dst] = board[src]
    pos[dst] = pos[src]
    roll[dst] = roll[src]
    roller[dst] = roller[src]
    phase[dst] = phase[src]
    choice[dst] = choice[src]
    remaining[dst] = remaining[src]
    placed[dst] = placed[src]
    row[dst] = row[src]
    plies[dst] = plies[src]
    empty_count[dst] = empty_count[src]
    label[dst] = label[src]
    group_size[dst] = group_size[src]
    vp[dst] = vp[src]


@njit(cache=True, nogil=True)  # nogil: the web app searches in a worker thread and answers other games meanwhile
def _search_kernel(
    budget,
    exploration,
    margin_weight,
    max_depth,
    epsilon,
    root_legal,
    root_visits,
    root_actions,
    board,
    pos,
    roll,
    roller,
    phase,
    choice,
    remaining,
    placed,
    row,
    plies,
    empty_count,
    label,
    group_size,
    vp,
    rng,
    luck,
    types,
    pass_action,
    path,
    rank,
    nbr,
    row_owner,
    row_type,
    eval_scale,
    max_plies,
    greedy,
):
    """The ``search`` baseline's decision for the mover of row 0, compiled: envs.common.mcts.MCTSPolicy.act
    (UCT, open loop: each simulation copies row 0 into row 1 and samples the dice from ``rng[1]``) with
    BordersMCTS's playouts and values (:func:`_playout_kernel`; tanh of the final vp margin / ``eval_scale``
    blended with the result by ``margin_weight``; a playout cut after ``max_depth`` plies is valued by the
    vp lead as baselines.vp_evaluate). ``root_visits[a]``: the visits of the root's child ``a`` (0 if none). The
    root's children are restricted to ``root_legal`` when choosing; returns the most visited (the first expanded
    on ties), -1 if none. ``root_actions``: when not empty, the root's children are exactly these (legal) actions
    instead of the candidates."""
    actions = pass_action + 1
    max_nodes = budget + 1
    children = np.full((max_nodes, actions), -1, dtype=np.int64)
    visits = np.zeros(max_nodes, dtype=np.int64)
    avail = np.zeros(max_nodes, dtype=np.int64)
    value = np.zeros((max_nodes, 2), dtype=np.float64)
    nodes = 1
    node_path = np.empty(max_plies + 2, dtype=np.int64)
    mask = np.zeros((1, actions), dtype=np.bool_)
    acts = np.empty(actions, dtype=np.int64)
    untried = np.empty(actions, dtype=np.int64)
    for _ in range(budget):
        _copy_row(
            0,
            1,
            board,
            pos,
            roll,
            roller,
            phase,
            choice,
            remaining,
            placed,
            row,
            plies,
            empty_count,
            label,
            group_size,
            vp,
        )
        node = 0
        node_path[0] = 0
        length = 1
        while empty_count[1] > 0:
            player = _mover(roller[1], phase[1])
            n = _candidates(
                remaining, row, roller, phase, choice, empty_count, 1, luck, types, row_owner, row_type, mask, acts
            )
            if node == 0 and root_actions.size > 0:
                n = root_actions.size
                acts[:n] = root_actions
            a = untried_choice(children, node, acts, n, avail, untried, rng, 1)
            if a >= 0:
                child = nodes
                nodes += 1
                children[node, a] = child
                avail[child] = 1
                _apply_row(
                    board,
                    pos,
                    roll,
                    roller,
                    phase,
                    choice,
                    remaining,
                    placed,
                    row,
                    plies,
                    empty_count,
                    label,
                    group_size,
                    vp,
                    rng,
                    1,
                    a,
                    luck,
                    pass_action,
                    path,
                    rank,
                    nbr,
                )
                node_path[length] = child
                length += 1
                break
            best = -1
            best_score = -np.inf
            for i in range(n):
                child = children[node, acts[i]]
                score = value[child, player] / visits[child] + exploration * np.sqrt(
                    np.log(avail[child]) / visits[child]
                )
                if score > best_score:
                    best = acts[i]
                    best_score = score
            _apply_row(
                board,
                pos,
                roll,
                roller,
                phase,
                choice,
                remaining,
                placed,
                row,
                plies,
                empty_count,
                label,
                group_size,
                vp,
                rng,
                1,
                best,
                luck,
                pass_action,
                path,
                rank,
                nbr,
            )
            node = children[node, best]
            node_path[length] = node
            length += 1
        if empty_count[1] > 0:
            _playout_kernel(
                1,
                max_depth,
                epsilon,
                board,
                pos,
                roll,
                roller,
                phase,
                choice,
                remaining,
                placed,
                row,
                plies,
                empty_count,
                label,
                group_size,
                vp,
                rng,
                luck,
                types,
                pass_action,
                path,
                rank,
                nbr,
                row_owner,
                row_type,
                greedy,
            )
        if empty_count[1] > 0:  # cut: the vp lead (baselines.vp_evaluate)
            v = np.tanh((vp[1, 0] - vp[1, 1] + 0.1 * (placed[1, 0] - placed[1, 1])) / eval_scale)
        else:
            d = vp[1, 0] - vp[1, 1]
            if d == 0:
                d = placed[1, 0] - placed[1, 1]
            result = 1.0 if d > 0 else (-1.0 if d < 0 else 0.0)
            margin = np.tanh((vp[1, 0] - vp[1, 1]) / eval_scale)
            v = (1 - margin_weight) * result + margin_weight * margin
        for i in range(length):
            visits[node_path[i]] += 1
            value[node_path[i], 0] += v
            value[node_path[i], 1] -= v
    best = -1
    for a in range(actions):
        child = children[0, a]
        root_visits[a] = visits[child] if child >= 0 else 0
        if (
            child >= 0
            and root_legal[a]
            and (
                best < 0
                or visits[child] > visits[children[0, best]]
                or (visits[child] == visits[children[0, best]] and child < children[0, best])
            )
        ):
            best = a
    return best


# ----- the batched game ----------------------------------------------------------------------------------------------
class BeastyBordersBatch(BatchedGame):
    """Beasty Borders over B games at once (module docstring). Options as ``rules.BeastyBordersGame``."""

    name = "beasty_borders"
    num_players = 2

    def __init__(self, variant: str = "main", path_order: str = "typewriter"):
        ref = BeastyBordersGame(variant=variant, path_order=path_order)  # ConfigError for bad options
        self.reference = ref
        self.luck = ref.luck
        self.num_actions = ref.num_actions
        self.pass_action = ref.pass_action
        self.observation_shape = ref.observation_shape
        self.max_game_length = ref.max_game_length
        self.cells = ref.cells
        self.num_types = ref.num_types
        self.num_tiles = ref.num_tiles
        t = ref.tables  # the observation kernels' tables (kernels.ObservationTables)
        self.path, self.rank, self.nbr, self.nbr4 = t.path, t.rank, t.nbr, t.nbr4
        self.lay, self.planes, self.slots = t.lay, t.planes, t.slots
        self.slot_cells = np.array(ref.slot_cells, dtype=np.int64)
        self.counts = np.array(ref.counts, dtype=np.int64)
        self.greedy = np.array(
            [
                greedy_weights.DENY,
                greedy_weights.POTENTIAL,
                greedy_weights.PASS_BELOW,
                greedy_weights.PASS_BELOW_RESPONDER,
            ],
            dtype=np.float64,
        )
        """The greedy playout rule's weights (greedy_weights.py), for the search baseline's kernels."""

    def options(self) -> dict[str, Any]:
        """The options, as the reference game reports them."""
        return self.reference.options()

    # ----- state -----------------------------------------------------------------------------------------------
    def new_state(self, batch: int) -> BordersBatchState:
        """Zeroed state for ``batch`` games (call :meth:`reset_rows` before use)."""

        def ints(*shape: int) -> np.ndarray:
            return np.zeros((batch, *shape), dtype=np.int64)

        return BordersBatchState(
            board=np.zeros((batch, self.cells), dtype=np.int8),
            tiles=np.zeros((batch, self.num_tiles), np.int8),
            pos=ints(),
            roll=ints(),
            roller=ints(),
            phase=ints(),
            choice=ints(),
            remaining=ints(2, 3),
            placed=ints(2),
            row=np.zeros((batch, act.ROW_LEN), dtype=bool),
            plies=ints(),
            empty_count=ints(),
            label=np.full((batch, self.cells), -1, dtype=np.int8),
            group_size=np.zeros((batch, self.cells), dtype=np.int8),
            vp=ints(2),
            rng=np.zeros(batch, np.uint64),
        )

    def _fields(self, s: BordersBatchState) -> tuple:
        return (
            s.board,
            s.pos,
            s.roll,
            s.roller,
            s.phase,
            s.choice,
            s.remaining,
            s.placed,
            s.row,
            s.plies,
            s.empty_count,
            s.label,
            s.group_size,
            s.vp,
            s.rng,
        )

    def reset_rows(self, state: BordersBatchState, rows: np.ndarray) -> None:
        """New games in ``rows``: tiles shuffled and the first roll drawn from each row's generator."""
        s = state
        _reset_kernel(
            np.asarray(rows, dtype=np.int64),
            s.board,
            s.tiles,
            s.pos,
            s.roll,
            s.roller,
            s.phase,
            s.choice,
            s.remaining,
            s.placed,
            s.row,
            s.plies,
            s.empty_count,
            s.label,
            s.group_size,
            s.vp,
            s.rng,
            self.luck,
            self.counts,
            self.slot_cells,
            _TILE_LAKE,
            self.path,
            self.rank,
        )

    def legal_mask(self, state: BordersBatchState, out: np.ndarray) -> None:
        """The mover's legal mask per row (zeros when over)."""
        s = state
        _legal_kernel(
            out, s.remaining, s.row, s.roller, s.phase, s.choice, s.empty_count, self.luck, self.num_types, _ROW_OWNER
        )

    def apply(self, state: BordersBatchState, actions: np.ndarray) -> None:
        """Play ``actions[b]`` (legal) in every live row; the next turn's roll from the row's generator."""
        _apply_kernel(
            np.asarray(actions, dtype=np.int64),
            *self._fields(state),
            self.luck,
            self.pass_action,
            self.path,
            self.rank,
            self.nbr,
        )

    def observe(self, state: BordersBatchState, seats: np.ndarray, out: np.ndarray) -> None:
        """Row ``b``'s observation from seat ``seats[b]`` (0 or 1) into ``out[b]``."""
        seats = np.asarray(seats, dtype=np.int64)
        if seats.shape != (out.shape[0],) or (seats.size and (seats.min() < 0 or seats.max() > 1)):
            raise ValueError(f"seats must be {out.shape[0]} seats 0 or 1")
        s = state
        _observe_kernel(
            seats,
            out,
            s.board,
            s.pos,
            s.roll,
            s.roller,
            s.phase,
            s.choice,
            s.remaining,
            s.row,
            s.empty_count,
            s.label,
            s.group_size,
            s.vp,
            self.lay,
            self.planes,
            self.slots,
            self.path,
            self.rank,
            self.nbr4,
            _ROW_OWNER,
        )

    def current_player(self, state: BordersBatchState) -> np.ndarray:
        """Seat to move per row: the roller, then the responder; TERMINAL once the landscape is full."""
        out = np.empty(state.pos.shape[0], dtype=np.int64)
        _current_player_kernel(state.roller, state.phase, state.empty_count, out)
        return out

    def returns(self, state: BordersBatchState) -> np.ndarray:
        """(B, 2) terminal rewards, zeros while live."""
        out = np.empty((state.pos.shape[0], 2), dtype=np.float64)
        _returns_kernel(state.vp, state.placed, state.empty_count, out)
        return out

    def truncated(self, state: BordersBatchState) -> np.ndarray:
        """The AEC env's ply cap (``max_game_length``) on a live game; a game always ends before it (every filling
        takes at most two decisions), so this stays False, but it is applied as the AEC env applies it."""
        return (state.empty_count > 0) & (state.plies >= self.max_game_length)

    def scores(self, state: BordersBatchState) -> np.ndarray:
        """(B, 2) victory points (rules.scores)."""
        return state.vp.copy()

    def shaping_potential(self, state: BordersBatchState) -> np.ndarray:
        """(B, 2) as ``Game.shaping_potential`` for this game: the victory points."""
        return state.vp.astype(np.float64)

    # ----- the bridge to rules.py ----------------------------------------------------------------------------
    def to_reference(self, state: BordersBatchState, row: int) -> BeastyBordersState:
        """Row ``row`` as a ``rules.BeastyBordersState`` (its generator is not carried over)."""
        ref = self.reference
        s = BeastyBordersState()
        s.tiles = [int(t) for t in state.tiles[row]]
        s.board = state.board[row].astype(np.intp)
        s.pos = int(state.pos[row])
        s.roll = int(state.roll[row])
        s.roller = int(state.roller[row])
        s.phase = int(state.phase[row])
        s.choice = int(state.choice[row])
        s.remaining = [[int(x) for x in state.remaining[row, seat, : self.num_types]] for seat in range(2)]
        s.placed = [int(x) for x in state.placed[row]]
        s.row = None if self.luck else state.row[row].astype(np.float32)
        s.empty = sorted(ref.rank[c] for c in np.flatnonzero(state.board[row] == EMPTY).tolist())
        return s

    def from_reference(self, reference_state: BeastyBordersState, state: BordersBatchState, row: int) -> None:
        """Write a ``rules.BeastyBordersState`` into row ``row`` (its generator kept; plies set to 0, since the
        reference state does not count them)."""
        r = reference_state
        state.tiles[row] = r.tiles
        state.board[row] = r.board
        state.pos[row] = r.pos
        state.roll[row] = r.roll
        state.roller[row] = r.roller
        state.phase[row] = r.phase
        state.choice[row] = r.choice
        state.remaining[row, :, : self.num_types] = r.remaining
        state.remaining[row, :, self.num_types :] = 0
        state.placed[row] = r.placed
        state.row[row] = False if r.row is None else r.row
        state.plies[row] = 0
        state.empty_count[row] = len(r.empty)
        rebuild_groups(state.board[row], state.label[row], state.group_size[row], state.vp[row], self.nbr)

    # ----- the search baseline's playouts -----------------------------------------------------------------------
    def playout(self, state: BordersBatchState, row: int, max_depth: int = -1, epsilon: float = 0.1) -> int:
        """Play row ``row`` on with the greedy playout rule of ``baselines.greedy_rollout`` (a uniformly random
        legal move with probability ``epsilon``) until the game ends or ``max_depth`` plies (< 0: no cut), chance
        and ties from the row's generator; returns the plies played."""
        return _playout_kernel(
            row,
            max_depth,
            epsilon,
            *self._fields(state),
            self.luck,
            self.num_types,
            self.pass_action,
            self.path,
            self.rank,
            self.nbr,
            _ROW_OWNER,
            _ROW_TYPE,
            self.greedy,
        )

    def search(
        self,
        state: BordersBatchState,
        legal: np.ndarray,
        budget: int,
        exploration: float,
        margin_weight: float,
        eval_scale: float,
        max_depth: int = -1,
        epsilon: float = 0.1,
        root_visits: np.ndarray | None = None,
        root_actions: np.ndarray | None = None,
    ) -> int:
        """The ``search`` baseline's move for the mover of row 0 of a 2-row ``state`` (row 1 is the simulations'
        scratch, ``rng[1]`` their generator): ``budget`` UCT simulations with greedy playouts (see
        :func:`_search_kernel`); ``legal`` the mover's bool mask; ``root_visits`` (int64, num_actions) receives the
        root children's visit counts; ``root_actions`` (legal ids), when given, the only root children the
        search considers. Returns the action, -1 if no legal child."""
        if root_visits is None:
            root_visits = np.zeros(self.num_actions, dtype=np.int64)
        root_actions = np.zeros(0, np.int64) if root_actions is None else np.asarray(root_actions, np.int64)
        if root_actions.size > self.num_actions:
            raise ValueError(f"at most {self.num_actions} root actions, got {root_actions.size}")
        return int(
            _search_kernel(
                budget,
                exploration,
                margin_weight,
                max_depth,
                epsilon,
                legal,
                root_visits,
                root_actions,
                *self._fields(state),
                self.luck,
                self.num_types,
                self.pass_action,
                self.path,
                self.rank,
                self.nbr,
                _ROW_OWNER,
                _ROW_TYPE,
                eval_scale,
                self.max_game_length,
                self.greedy,
            )
        )

    has_greedy_actions = True

    def greedy_actions(self, state: BordersBatchState, rng: np.ndarray, out: np.ndarray) -> None:
        """``baselines.greedy_choice`` for the mover of every live row into ``out`` (B,) int64 (-1 where over), ties
        drawn from ``rng[b]`` (a SplitMix64 state per row, advanced in place; never the row's own chance
        generator)."""
        batch = state.pos.shape[0]
        if rng.dtype != np.uint64 or rng.shape != (batch,) or out.dtype != np.int64 or out.shape != (batch,):
            raise ValueError(
                f"greedy_actions needs rng uint64 ({batch},) and out int64 ({batch},), got rng "
                f"{rng.dtype}{rng.shape} and out {out.dtype}{out.shape}"
            )
        seats = self.current_player(state)
        s = state
        values = np.empty(3, dtype=np.float64)
        out[:] = -1
        for b in np.flatnonzero(seats >= 0):
            out[b] = _greedy_action(
                s.board,
                s.pos,
                s.phase,
                s.choice,
                s.remaining,
                s.row,
                s.label,
                s.group_size,
                rng,
                b,
                int(seats[b]),
                self.luck,
                self.num_types,
                self.pass_action,
                self.nbr,
                _ROW_OWNER,
                _ROW_TYPE,
                values,
                self.greedy,
            )
