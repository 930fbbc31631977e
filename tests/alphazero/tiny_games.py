"""Tiny rule engines for the search's tests: tic-tac-toe (two players, positions everyone can check) and a
counting race for any number of players whose exact values a short recursion gives."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from envs.common.game import TERMINAL, Game, IllegalActionError, pairwise_rewards

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class TicTacToe(Game[list]):
    """Cells 0..8 row by row; state = [9 cells (0 empty, 1 X, 2 O), to_move]. X (seat 0) moves first."""

    name = "tictactoe"
    num_players = 2
    num_actions = 9
    observation_shape = (3, 3, 3)
    max_game_length = 9

    def options(self) -> dict[str, Any]:
        return {}

    def initial_state(self, rng: np.random.Generator | None = None) -> list:
        return [0] * 9 + [0]

    def from_text(self, text: str) -> list:
        """``"X.O/.X./..O"`` style rows; the player to move follows from the counts (X first)."""
        cells = [".XO".index(ch) for ch in text.replace("/", "").replace(" ", "")]
        return cells + [0 if cells.count(1) == cells.count(2) else 1]

    def winner(self, state: list) -> int:
        for a, b, c in LINES:
            if state[a] and state[a] == state[b] == state[c]:
                return state[a] - 1
        return -1

    def current_player(self, state: list) -> int:
        if self.winner(state) >= 0 or all(state[:9]):
            return TERMINAL
        return state[9]

    def legal_mask(self, state: list) -> np.ndarray:
        mask = np.zeros(9, dtype=np.int8)
        if self.current_player(state) != TERMINAL:
            mask[[i for i in range(9) if state[i] == 0]] = 1
        return mask

    def apply(self, state: list, action: int, rng: np.random.Generator | None = None) -> None:
        a = self.check_action_range(action)
        if self.current_player(state) == TERMINAL or state[a]:
            raise IllegalActionError(f"cell {a} is not free")
        state[a] = state[9] + 1
        state[9] = 1 - state[9]

    def returns(self, state: list) -> np.ndarray:
        w = self.winner(state)
        if w < 0:
            return np.zeros(2)
        out = -np.ones(2)
        out[w] = 1.0
        return out

    def clone(self, state: list) -> list:
        return list(state)

    def observation(self, state: list, seat: int) -> np.ndarray:
        cells = np.array(state[:9]).reshape(3, 3)
        return np.stack([cells == seat + 1, cells == 2 - seat, cells == 0]).astype(np.float32)

    def action_to_str(self, state: list, action: int) -> str:
        return str(action)

    def state_to_json(self, state: list) -> dict[str, Any]:
        return {"cells": state[:9], "to_move": state[9]}

    def state_from_json(self, data: dict[str, Any]) -> list:
        return list(data["cells"]) + [data["to_move"]]

    def render_ansi(self, state: list) -> str:
        return "/".join("".join(".XO"[c] for c in state[r * 3 : r * 3 + 3]) for r in range(3))

    def render_rgb(self, state: list) -> np.ndarray:
        return np.zeros((3, 3, 3), dtype=np.uint8)


def solve_tictactoe(game: TicTacToe, state: list) -> dict[int, float]:
    """Exact value of every legal action for the player to move (+1 win, 0 draw, -1 loss)."""

    @cache
    def value(cells: tuple) -> float:
        s = list(cells)
        if game.current_player(s) == TERMINAL:
            return float(game.returns(s)[1 - s[9]])  # for the player who just moved
        best = -2.0  # the best the player to move can get; the player who just moved gets its negation
        for a in game.legal_actions(s):
            child = game.clone(s)
            game.apply(child, a)
            best = max(best, value(tuple(child)))
        return -best

    out = {}
    for a in game.legal_actions(state):
        child = game.clone(state)
        game.apply(child, a)
        out[a] = value(tuple(child))
    return out


class Race(Game[list]):
    """``num_players`` seats in turn add 1 or 2 (actions 0, 1) to a counter; the seat that brings it to ``target``
    or beyond wins. State = [counter, to_move]. The observation says the counter and the *absolute* seat to move
    (one-hot each), so that a test evaluator can give exact values."""

    name = "race"
    num_actions = 2
    max_game_length = 100

    def __init__(self, num_players: int = 4, target: int = 7):
        self.num_players = num_players
        self.target = target
        self.observation_shape = (target + 1 + num_players,)

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "target": self.target}

    def initial_state(self, rng: np.random.Generator | None = None) -> list:
        return [0, 0]

    def current_player(self, state: list) -> int:
        return TERMINAL if state[0] >= self.target else state[1]

    def legal_mask(self, state: list) -> np.ndarray:
        return np.ones(2, dtype=np.int8) if state[0] < self.target else np.zeros(2, dtype=np.int8)

    def apply(self, state: list, action: int, rng: np.random.Generator | None = None) -> None:
        a = self.check_action_range(action)
        if state[0] >= self.target:
            raise IllegalActionError("the race is over")
        state[0] += a + 1
        if state[0] < self.target:
            state[1] = (state[1] + 1) % self.num_players

    def returns(self, state: list) -> np.ndarray:
        if state[0] < self.target:
            return np.zeros(self.num_players)
        keys = [1 if s == state[1] else 0 for s in range(self.num_players)]
        return pairwise_rewards(keys)

    def clone(self, state: list) -> list:
        return list(state)

    def observation(self, state: list, seat: int) -> np.ndarray:
        obs = np.zeros(self.observation_shape, dtype=np.float32)
        obs[min(state[0], self.target)] = 1.0
        obs[self.target + 1 + state[1]] = 1.0
        return obs

    def exact_values(self, counter: int, mover: int) -> np.ndarray:
        """Per-seat values (absolute seats) when every seat maximises its own value (max^n; ties: action 0)."""

        @cache
        def solve(c: int, m: int) -> tuple[float, ...]:
            best = None
            for a in (0, 1):
                state = [c, m]
                self.apply(state, a)
                v = tuple(self.returns(state)) if state[0] >= self.target else solve(*state)
                if best is None or v[m] > best[m]:
                    best = v
            return best

        return np.array(solve(counter, mover))

    def action_to_str(self, state: list, action: int) -> str:
        return f"+{action + 1}"

    def state_to_json(self, state: list) -> dict[str, Any]:
        return {"counter": state[0], "to_move": state[1]}

    def state_from_json(self, data: dict[str, Any]) -> list:
        return [data["counter"], data["to_move"]]

    def render_ansi(self, state: list) -> str:
        return f"{state[0]} (seat {state[1]} to move)"

    def render_rgb(self, state: list) -> np.ndarray:
        return np.zeros((1, 1, 3), dtype=np.uint8)


class ExactRaceEvaluator:
    """Uniform logits and the race's exact values, in observer-relative order (read off the observation)."""

    def __init__(self, game: Race):
        self.game = game

    def __call__(self, obs: np.ndarray, legal: list) -> tuple[list, np.ndarray]:
        t = self.game.target
        values = []
        for o in obs:
            counter = int(np.argmax(o[: t + 1]))
            mover = int(np.argmax(o[t + 1 :]))
            absolute = self.game.exact_values(counter, mover)
            values.append(np.roll(absolute, -mover))  # relative: the mover first
        return [np.zeros(len(a)) for a in legal], np.array(values)


class DiceDuel(Game[list]):
    """One decision, then a D8: seat 0 picks ``bold`` (action 0: wins on an 8 only) or ``safe`` (action 1: wins on
    anything but a 1); the die is rolled inside ``apply`` with the given generator. State = [choice, roll]."""

    name = "dice_duel"
    num_players = 2
    num_actions = 2
    observation_shape = (3,)
    max_game_length = 1

    def options(self) -> dict[str, Any]:
        return {}

    def initial_state(self, rng: np.random.Generator | None = None) -> list:
        return [-1, 0]

    def current_player(self, state: list) -> int:
        return 0 if state[0] < 0 else TERMINAL

    def legal_mask(self, state: list) -> np.ndarray:
        return np.ones(2, dtype=np.int8) if state[0] < 0 else np.zeros(2, dtype=np.int8)

    def apply(self, state: list, action: int, rng: np.random.Generator) -> None:
        a = self.check_action_range(action)
        if state[0] >= 0:
            raise IllegalActionError("the duel is over")
        state[0] = a
        state[1] = int(rng.integers(1, 9))

    def returns(self, state: list) -> np.ndarray:
        if state[0] < 0:
            return np.zeros(2)
        won = state[1] == 8 if state[0] == 0 else state[1] != 1
        return np.array([1.0, -1.0]) if won else np.array([-1.0, 1.0])

    def clone(self, state: list) -> list:
        return list(state)

    def observation(self, state: list, seat: int) -> np.ndarray:
        return np.array([state[0] < 0, state[0] == 0, state[0] == 1], dtype=np.float32)

    def action_to_str(self, state: list, action: int) -> str:
        return ("bold", "safe")[action]

    def state_to_json(self, state: list) -> dict[str, Any]:
        return {"choice": state[0], "roll": state[1]}

    def state_from_json(self, data: dict[str, Any]) -> list:
        return [data["choice"], data["roll"]]

    def render_ansi(self, state: list) -> str:
        return str(state)

    def render_rgb(self, state: list) -> np.ndarray:
        return np.zeros((1, 1, 3), dtype=np.uint8)
