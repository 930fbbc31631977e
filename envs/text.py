"""A text environment for language-model RL loops, in TextArena's shape: observations are prompt text, actions are
replies (``docs/llm.md``)::

    from envs.text import text_env

    env = text_env("bestiarium", seed=0, board_size=5)
    done = False
    while not done:
        player_id, observation = env.get_observation()
        done, info = env.step(my_model(observation))  # "e5", "3", "Answer: e5", '{"move": "e5"}', ...
    rewards = env.close()  # {0: 1.0, 1: -1.0}

Every game of ``envs.GAMES`` runs here on its engine. An observation is
:func:`~envs.common.seat_view.seat_text` of the seat to move (the rules in brief, the position as that seat sees
it, its numbered legal moves), the moves since, as that seat saw them (another seat's face-down card is only
"lays a food card face down"), and why its last reply was refused, if it was. A reply is read by
:func:`~envs.common.seat_view.parse_reply`.

Invalid replies, TextArena's ``error_allowance`` rule: a reply that names no legal move is refused (``info["valid"]``
False, ``info["error"]`` says why, the same seat is asked again, the game does not change) up to
``error_allowance`` times in a row on one decision (default 1); the next invalid reply **forfeits**: the game ends,
the forfeiting seat gets -1 and every other seat +1 / (n - 1) (zero-sum: a loss and a win in a two-player game),
whatever the game's reward scheme. ``error_allowance=0`` is "an invalid move loses".

Simultaneous phases (Boaring's face-down bids) are asked one seat at a time, in the engine's order; each bidder
sees only its own view: the bids already laid are hidden until the last one is in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import envs
from envs.common.game import TERMINAL, Game
from envs.common.seat_view import ReplyError, legal_moves, parse_reply, seat_text

__all__ = ["TextEnv", "text_env"]


class TextEnv:
    """One game as text: :meth:`reset`, :meth:`get_observation`, :meth:`step`, :meth:`close` (the module
    docstring). ``game``: a game id of ``envs.GAMES``; ``seed``: the default seed of :meth:`reset` (None: fresh
    entropy each time); ``error_allowance``: invalid replies a seat may send in a row on one decision before the
    next forfeits; ``history``: how many recent moves an observation lists; ``options``: the game's options."""

    def __init__(
        self, game: str, seed: int | None = None, *, error_allowance: int = 1, history: int = 8, **options: Any
    ):
        self.game: Game = envs.make_game(game, **options)
        for name, value in (("error_allowance", error_allowance), ("history", history)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, not {value!r}")
        self.error_allowance = error_allowance
        self.history = history
        self.seed = seed
        self.render: Any = envs.game_info(game).room("render")
        """The game's ``render.py``: seat names, board JSON and public events (a reveal, a roll) for the log."""
        self.names: list[str] = [str(name) for name in self.render.seat_names(self.game)]
        """A short name per seat (the game's ``render.seat_names``), as the observations name the seats."""
        self.reset(seed)

    # ----- TextArena's calls ---------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """A new game: ``seed`` (None: the seed given to :func:`text_env`) draws its chance."""
        self.rng = np.random.default_rng(self.seed if seed is None else seed)
        self.state = self.game.initial_state(self.rng)
        self.plies = 0
        self.done = False
        self.rewards: dict[int, float] | None = None
        """Each seat's reward once the game is over (None while it is live)."""
        self.forfeit: int | None = None
        """The seat that forfeited by invalid replies, if one did."""
        self.errors = 0
        """Invalid replies in a row on the current decision."""
        self.last_error: str | None = None
        self.logs: list[list[str]] = [[] for _ in range(self.game.num_players)]
        """Per seat, every move so far as that seat saw it, and the public events (a reveal, a roll)."""
        self.boards = [self._board(s) for s in range(self.game.num_players)]
        for seat, board in enumerate(self.boards):
            self.logs[seat] += [str(line) for line in self.render.events(self.game, None, board)]

    def get_observation(self) -> tuple[int, str]:
        """``(player_id, observation)``: the seat to reply now and its prompt text."""
        if self.done:
            raise RuntimeError("the game is over: call close() for the rewards, or reset() for a new game")
        seat = self.player_id
        parts = [seat_text(self.game, self.state, seat)]
        recent = self.logs[seat][-self.history :] if self.history else []
        if recent:
            parts.append("Recent moves (oldest first):\n" + "\n".join(f"  {line}" for line in recent) + "\n")
        if self.last_error is not None:
            left = self.error_allowance - self.errors
            parts.append(
                f"Your last reply was refused: {self.last_error}\n"
                + (
                    f"Reply again ({left} more invalid {'reply' if left == 1 else 'replies'} allowed before you "
                    "forfeit).\n"
                    if left
                    else "Reply again: one more invalid reply forfeits the game.\n"
                )
            )
        return seat, "\n".join(parts)

    def step(self, action: str) -> tuple[bool, dict[str, Any]]:
        """Play the reply ``action`` of the seat to move: ``(done, info)``. ``info``: ``player``, ``valid``, and
        ``action`` (the action id) and ``move`` (its notation) for a valid reply, ``error`` (why not) and
        ``retries_left`` for an invalid one; at the end ``rewards``, and ``forfeit`` (the seat, if one
        forfeited) and ``truncated``."""
        if self.done:
            raise RuntimeError("the game is over: call close() for the rewards, or reset() for a new game")
        game, state, seat = self.game, self.state, self.player_id
        info: dict[str, Any] = {"player": seat}
        try:
            chosen = parse_reply(game, state, seat, action)
        except ReplyError as error:
            self.errors += 1
            info.update(valid=False, error=str(error), retries_left=max(self.error_allowance - self.errors + 1, 0))
            if self.errors > self.error_allowance:
                n = game.num_players
                self._finish({s: -1.0 if s == seat else 1.0 / (n - 1) for s in range(n)}, info)
                self.forfeit = info["forfeit"] = seat
                info["retries_left"] = 0
            else:
                self.last_error = str(error)
            return self.done, info
        move = game.action_to_str(state, chosen)
        for observer in range(game.num_players):
            seen = move if observer == seat else game.action_to_str_for(state, chosen, observer)
            self.logs[observer].append(f"{self.names[seat]}: {seen}")
        game.apply(state, chosen, self.rng)
        self.plies += 1
        for observer in range(game.num_players):
            board = self._board(observer)
            self.logs[observer] += [str(line) for line in self.render.events(game, self.boards[observer], board)]
            self.boards[observer] = board
        self.errors, self.last_error = 0, None
        info.update(valid=True, action=chosen, move=move)
        over = game.current_player(state) == TERMINAL
        if over or game.is_truncated(state) or self.plies >= game.max_game_length:
            info["truncated"] = not over
            self._finish({s: float(r) for s, r in enumerate(game.returns(state))}, info)
        return self.done, info

    def close(self) -> dict[int, float]:
        """Each seat's reward (the game's returns, or the forfeit's); zeros for a game closed before its end."""
        if self.rewards is None:
            return dict.fromkeys(range(self.game.num_players), 0.0)
        return dict(self.rewards)

    # ----- helpers -------------------------------------------------------------------------------------------------
    @property
    def player_id(self) -> int:
        """The seat to reply now (the engine's player to move; -1 once over)."""
        return -1 if self.done else int(self.game.current_player(self.state))

    @property
    def num_players(self) -> int:
        return self.game.num_players

    def legal_moves(self) -> list[tuple[int, str]]:
        """The seat to move's legal moves, ``(action id, notation)`` (what its observation lists)."""
        return [] if self.done else legal_moves(self.game, self.state, self.player_id)

    def _board(self, seat: int) -> Any:
        """The board JSON ``seat`` may see (from its information state), for the public events between moves."""
        return self.render.board_data(self.game, self.game.information_state(self.state, seat))

    def _finish(self, rewards: dict[int, float], info: dict[str, Any]) -> None:
        self.done = True
        self.rewards = rewards
        info["rewards"] = dict(rewards)
        info.setdefault("truncated", False)


def text_env(game: str, seed: int | None = None, **options: Any) -> TextEnv:
    """A :class:`TextEnv` of ``game`` (an id of ``envs.GAMES``), reset with ``seed``; ``options``: the game's options,
    and ``error_allowance`` (default 1) and ``history`` (default 8) of the env."""
    return TextEnv(game, seed, **options)
