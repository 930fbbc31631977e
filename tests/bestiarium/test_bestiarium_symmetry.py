"""Bestiarium's symmetries: the 12 rotations and reflections of the hexhex board, in every position."""

from __future__ import annotations

import numpy as np
import pytest

from envs.bestiarium.rules import BestiariumGame, BestiariumState
from envs.common.game import Symmetry
from envs.common.hexgrid import transforms


def _cell_map(game: BestiariumGame, sym: Symmetry) -> np.ndarray:
    return np.asarray(sym.actions[: game.num_cells])


def _turned(game: BestiariumGame, state: BestiariumState, cell_map: np.ndarray) -> BestiariumState:
    """``state`` with every stone moved by ``cell_map``, rebuilt through its JSON form (creatures recomputed)."""
    data = game.state_to_json(state)
    board = ["."] * game.num_cells
    for c, ch in enumerate(data["board"]):
        board[cell_map[c]] = ch
    data["board"] = "".join(board)
    data["chain"] = sorted(int(cell_map[c]) for c in data["chain"])
    return game.state_from_json(data)


def _random_state(game: BestiariumGame, rng: np.random.Generator, plies: int) -> BestiariumState:
    state = game.initial_state(rng)
    for _ in range(plies):
        if game.is_terminal(state):
            break
        game.apply(state, int(rng.choice(game.legal_actions(state))))
    return state


@pytest.mark.parametrize("size", [5, 6])
def test_the_maps_are_twelve_permutations_that_keep_the_board(size: int):
    game = BestiariumGame(board_size=size)
    state = game.initial_state()
    syms = game.symmetries(state)
    assert len(syms) == 12 and game.has_symmetries
    assert np.array_equal(syms[0].actions, np.arange(game.num_actions))
    assert np.array_equal(syms[0].observation_source, np.arange(syms[0].observation_source.size))
    neighbours = {(i, j) for i in range(game.num_cells) for j in game.grid.neighbor_lists[i]}
    for sym in syms:
        assert np.array_equal(np.sort(sym.actions), np.arange(game.num_actions))
        assert np.array_equal(np.sort(sym.observation_source), np.arange(sym.observation_source.size))
        assert sym.actions[game.pass_action] == game.pass_action
        cells = _cell_map(game, sym)
        assert {(int(cells[i]), int(cells[j])) for i, j in neighbours} == neighbours, "neighbours stay neighbours"
        assert cells[game.grid.index[(0, 0)]] == game.grid.index[(0, 0)]
    assert len({tuple(_cell_map(game, s)) for s in syms}) == 12
    # the same twelve as the hex grid's point maps (rotations, then reflected rotations)
    for sym, point_map in zip(syms, transforms("free")):
        assert all(game.grid.coords[_cell_map(game, sym)[i]] == point_map(c) for i, c in enumerate(game.grid.coords))
    assert game.symmetries(_random_state(game, np.random.default_rng(0), 20)) is syms


@pytest.mark.parametrize("equivalence", ["free", "one_sided", "fixed"])
def test_a_turned_position_is_the_position_turned_and_plays_the_same_game(equivalence: str):
    """Observation (both seats) and mask of the hand-turned position are the symmetry's maps of the original's,
    and played with the turned moves the turned game stays the turned game to the end (same result)."""
    game = BestiariumGame(board_size=5, shape_equivalence=equivalence)
    grow_phases = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        start = _random_state(game, rng, int(rng.integers(0, 30)))
        for sym in game.symmetries(start)[1:]:
            original = start.clone()
            turned = _turned(game, start, _cell_map(game, sym))
            while not game.is_terminal(original) and not game.is_truncated(original):
                for seat in range(2):
                    assert np.array_equal(
                        game.observation(turned, seat), sym.observation(game.observation(original, seat))
                    )
                mask = game.legal_mask(original)
                assert np.array_equal(game.legal_mask(turned), sym.mask(mask))
                grow_phases += original.phase == 1
                action = int(rng.choice(np.flatnonzero(mask)))
                game.apply(original, action)
                game.apply(turned, int(sym.actions[action]))
            assert game.is_terminal(turned) == game.is_terminal(original)
            assert np.array_equal(game.returns(turned), game.returns(original))
            assert np.array_equal(game.scores(turned), game.scores(original))
    assert grow_phases > 0, "eating chains were played through"
