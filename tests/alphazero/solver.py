"""Exact values of small positions by exhaustive search (max^n: every seat maximises its own return), to check
the positions the search tests use."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from envs.common.game import TERMINAL, Game


def exact_values(game: Game, state: Any, memo: dict | None = None) -> np.ndarray:
    """Per-seat values of ``state`` with best play (ties: the first action in id order)."""
    memo = {} if memo is None else memo
    key = json.dumps(game.state_to_json(state), sort_keys=True)
    if key in memo:
        return memo[key]
    player = game.current_player(state)
    if player == TERMINAL:
        value = np.asarray(game.returns(state), dtype=float)
    else:
        value = None
        for a in game.legal_actions(state):
            child = game.clone(state)
            game.apply(child, a)
            v = exact_values(game, child, memo)
            if value is None or v[player] > value[player]:
                value = v
    memo[key] = value
    return value


def action_values(game: Game, state: Any) -> dict[int, float]:
    """Exact value of every legal action for the player to move."""
    player = game.current_player(state)
    memo: dict = {}
    out = {}
    for a in game.legal_actions(state):
        child = game.clone(state)
        game.apply(child, a)
        out[a] = float(exact_values(game, child, memo)[player])
    return out


def wins_at_once(game: Game, state: Any, action: int) -> bool:
    """Whether ``action`` ends the game with the player to move winning outright."""
    player = game.current_player(state)
    child = game.clone(state)
    game.apply(child, action)
    returns = game.returns(child)
    return (
        game.current_player(child) == TERMINAL
        and returns[player] == returns.max()
        and (returns == returns.max()).sum() == 1
    )


def value_bounds(game: Game, state: Any, seat: int, memo: dict | None = None) -> tuple[float, float]:
    """``seat``'s value when it plays its best and every other seat plays against it (the worst case) or for it
    (the best case). A worst case of 1 is a forced win whatever the others do."""
    memo = {} if memo is None else memo
    key = json.dumps(game.state_to_json(state), sort_keys=True)
    if key in memo:
        return memo[key]
    player = game.current_player(state)
    if player == TERMINAL:
        v = float(game.returns(state)[seat])
        out = (v, v)
    else:
        lows, highs = [], []
        for a in game.legal_actions(state):
            child = game.clone(state)
            game.apply(child, a)
            low, high = value_bounds(game, child, seat, memo)
            lows.append(low)
            highs.append(high)
        out = (max(lows), max(highs)) if player == seat else (min(lows), max(highs))
    memo[key] = out
    return out


def action_bounds(game: Game, state: Any) -> dict[int, tuple[float, float]]:
    """:func:`value_bounds` of every legal action for the player to move."""
    seat = game.current_player(state)
    memo: dict = {}
    out = {}
    for a in game.legal_actions(state):
        child = game.clone(state)
        game.apply(child, a)
        out[a] = value_bounds(game, child, seat, memo)
    return out
