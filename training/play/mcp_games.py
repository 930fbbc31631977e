"""The games behind ``barnyard mcp`` (:mod:`training.play.mcp_server`), with no MCP in here: a :class:`SeatGame` is
one game with some seats played through MCP (each with its own secret token) and the others by policies; a
:class:`GameTable` keeps the live games, bounded in number and forgotten when idle.

What a seat is shown is :mod:`envs.common.seat_view` of its own information state (``seat_view``, ``seat_text``,
``legal_moves``) and its own log of the moves (another seat's hidden move as the rules show it: "lays a food card
face down"); a move is read by ``parse_reply``. So a seat never gets another seat's hand, an unrevealed bid, the
game's seed (shown in the result once the game is over) or another seat's token.

Simultaneous phases (Boaring's bids): every seat yet to choose is shown its moves at once. The engine takes the
choices one seat at a time, so a choice sent before the engine reaches its seat is held (``submitted``) and played
in the engine's order; it is in no view, and nothing in another seat's view changes, until the engine has it and
the rules reveal it.

Every refusal is a :class:`Refusal` raised before anything changes.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.common.game import TERMINAL, ConfigError, Game
from envs.common.policies import Policy, decision_from_state
from envs.common.seat_view import ReplyError, legal_moves, parse_reply, seat_text, seat_view
from training.arena.players import baseline_names, make_policy
from training.play.web.sessions import HUMAN, MAX_SPEC, UNKNOWN_POLICY, WebError, check_spec
from training.specs import MAX_SIMULATIONS

__all__ = ["MCP", "GameTable", "Limits", "Refusal", "SeatGame"]

MCP = "mcp"
"""How :meth:`SeatGame.public` names a seat played through MCP."""
MAX_SEED = 2**31 - 1
"""The largest seed a new game takes (the web app's)."""
MAX_TOKEN_CHARS = 64
"""Longest token or game id read (longer ones are refused unread)."""
MAX_OPTIONS = 16
"""Most option keys a new game takes."""
RECENT = 16
"""Log lines a seat's report repeats (its most recent moves and events)."""
DEFAULT_OPPONENT = "greedy"
"""The opponent of every other seat when ``opponents`` is not given (``random`` where a game has no greedy)."""


class Refusal(ValueError):
    """A call the server refuses; the message says why in words a model can act on. Nothing was changed."""


@dataclass(frozen=True)
class Limits:
    """What ``barnyard mcp`` bounds (its options set them)."""

    max_games: int = 64
    """Live games at most; a new game beyond is refused (finished games make room, the oldest first)."""
    ttl: float = 1800.0
    """Seconds a game is kept after its last call, finished or not."""
    max_request_bytes: int = 64 * 1024
    """Largest request (one JSON-RPC message on stdio, one HTTP body): a larger one is refused unread."""
    bot_threads: int = 4
    """Games whose opponents think at once (each in a worker thread); more wait their turn."""
    quick_threads: int = 8
    """Cheap calls (views, moves) served at once in worker threads."""
    max_sessions: int = 32
    """MCP sessions at once over HTTP."""
    checkpoint_folders: tuple[Path, ...] = field(default_factory=lambda: (Path("checkpoints"), Path("runs")))
    """The only folders an opponent's checkpoint is loaded from (the web app's rule: ``check_spec``)."""


def shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages quoting what a call sent."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _whole(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def build_game(name: Any, options: Any) -> Game:
    """The engine of game ``name`` with ``options``; :class:`Refusal` naming the games or the bad option."""
    if not isinstance(name, str) or name not in envs.GAMES:
        raise Refusal(f"unknown game {shown(name)}; the games are {', '.join(envs.GAMES)} (the catalog tool)")
    if options is None:
        options = {}
    if not isinstance(options, dict) or len(options) > MAX_OPTIONS:
        raise Refusal(f'options must be an object of at most {MAX_OPTIONS} options, e.g. {{"num_players": 2}}')
    if "render_mode" in options:
        raise Refusal("render_mode is not a game option here")
    try:
        return envs.make_game(name, **options)
    except (ConfigError, TypeError, ValueError) as err:
        raise Refusal(f"bad options for {name}: {err}") from None


def _seats(n: int, seat: Any, mcp_seats: Any) -> list[int]:
    """The MCP seats of a new game: ``seat`` alone, seats ``0 .. mcp_seats - 1`` (a count) or the listed seats;
    seat 0 when neither is given."""
    if seat is not None and mcp_seats is not None:
        raise Refusal("give either seat (your one seat) or mcp_seats (how many seats, or which), not both")
    if mcp_seats is None:
        seat = 0 if seat is None else seat
        if not _whole(seat) or not 0 <= seat < n:
            raise Refusal(f"seat must be a seat number from 0 to {n - 1}, not {shown(seat)}")
        return [int(seat)]
    if _whole(mcp_seats):
        if not 1 <= mcp_seats <= n:
            raise Refusal(f"mcp_seats must be from 1 to {n} (this game's players), not {mcp_seats}")
        return list(range(int(mcp_seats)))
    if (
        isinstance(mcp_seats, list)
        and 1 <= len(mcp_seats) <= n
        and all(_whole(s) and 0 <= s < n for s in mcp_seats)
        and len(set(mcp_seats)) == len(mcp_seats)
    ):
        return sorted(int(s) for s in mcp_seats)
    raise Refusal(f"mcp_seats must be a count from 1 to {n} or a list of distinct seats from 0 to {n - 1}")


def _opponents(game_name: str, others: list[int], opponents: Any, folders: Sequence[Path]) -> dict[int, str]:
    """Each seat not played through MCP -> its policy spec, checked against the web app's caps and folders."""
    if opponents is None:
        default = DEFAULT_OPPONENT if DEFAULT_OPPONENT in baseline_names(game_name) else "random"
        opponents = [default] * len(others)
    elif isinstance(opponents, str):
        opponents = [opponents] * len(others)
    if not isinstance(opponents, list) or len(opponents) != len(others):
        raise Refusal(
            f"opponents must be one policy spec, or a list of {len(others)} (one per seat not played through MCP: "
            f'seats {", ".join(map(str, others)) or "none"}), e.g. ["greedy"]'
        )
    specs: dict[int, str] = {}
    for seat, spec in zip(others, opponents):
        if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC:
            raise Refusal(f"seat {seat}: a policy spec is a name of at most {MAX_SPEC} characters")
        spec = spec.strip()
        if spec in (HUMAN, MCP):
            raise Refusal(f"seat {seat}: to play a seat through MCP, list it in mcp_seats")
        try:
            check_spec(spec, seat, game_name, folders)
        except WebError as err:
            message = err.message
            if message.endswith(UNKNOWN_POLICY):
                message = (
                    f"seat {seat}: unknown policy {shown(spec)}; choose {', '.join(baseline_names(game_name))}, "
                    "a budget such as search:200, or a checkpoint under the server's checkpoint folders"
                )
            raise Refusal(message) from None
        specs[seat] = spec
    return specs


class SeatGame:
    """One game: MCP seats (each with a secret token), policies at the others, and what each MCP seat has seen.

    Thread-safe: every read and change holds :attr:`lock`; a policy thinks outside it (:meth:`advance`), so views
    and moves of the game's other seats are served meanwhile. ``deal`` (tests only, never from a call): a function
    ``(game, rng) -> state`` dealing the first position instead of ``game.initial_state``.
    """

    def __init__(
        self,
        game_name: Any,
        options: Any = None,
        seat: Any = None,
        mcp_seats: Any = None,
        opponents: Any = None,
        seed: Any = None,
        folders: Sequence[Path] = (),
        deal: Callable[[Game, np.random.Generator], Any] | None = None,
    ):
        self.id = ""
        self.game = build_game(game_name, options)
        self.game_name: str = game_name
        n = self.game.num_players
        self.mcp_seats = _seats(n, seat, mcp_seats)
        others = [s for s in range(n) if s not in self.mcp_seats]
        self.specs = _opponents(game_name, others, opponents, folders)
        if seed is None:
            seed = secrets.randbelow(MAX_SEED + 1)
        elif not _whole(seed) or not 0 <= seed <= MAX_SEED:
            raise Refusal(f"seed must be a whole number from 0 to {MAX_SEED}, or left out (the server draws one)")
        self.seed = int(seed)
        self.policies: dict[int, Policy] = {}
        for s, spec in self.specs.items():
            try:
                policy = make_policy(spec, game_name, self.game.options(), self.seed * 101 + s, list(folders))
            except ImportError as err:
                raise Refusal(f"seat {s}: {shown(spec, 80)} needs a missing package ({err})") from None
            except ValueError as err:  # UnknownPolicyError, CheckpointError: messages for a user
                raise Refusal(f"seat {s}: {err}") from None
            policy.reset(self.seed * 101 + s)
            self.policies[s] = policy
        self.tokens: dict[int, str] = {s: secrets.token_urlsafe(24) for s in self.mcp_seats}
        self.render: Any = envs.game_info(game_name).room("render")
        self.names = [str(x) for x in self.render.seat_names(self.game)]
        self.rng = np.random.default_rng(self.seed)
        self.state = self.game.initial_state(self.rng) if deal is None else deal(self.game, self.rng)
        self.plies = 0
        self.pending: dict[int, int] = {}
        """MCP seats' choices sent before the engine reached them (a simultaneous phase), played in its order."""
        self.resigned: int | None = None
        self.error: str | None = None
        """Why the game stopped, if an opponent's policy failed."""
        self.advancing = False
        """Whether a thread is playing the opponents' moves now (one at a time per game)."""
        self.lock = threading.Lock()
        self.logs: dict[int, list[str]] = {s: [] for s in self.mcp_seats}
        self.boards: dict[int, Any] = {s: self._board(s) for s in self.mcp_seats}
        for s, board in self.boards.items():
            self.logs[s] += [str(line) for line in self.render.events(self.game, None, board)]

    # ----- who is calling ----------------------------------------------------------------------------------------
    def seat_of(self, token: Any) -> int:
        """The MCP seat whose token ``token`` is; :class:`Refusal` for any other (compared in constant time)."""
        holder = None
        if isinstance(token, str) and len(token) <= MAX_TOKEN_CHARS:
            for s, secret in self.tokens.items():
                if secrets.compare_digest(secret.encode(), token.encode()):
                    holder = s
        if holder is None:
            raise Refusal("bad token: a call for a seat needs that seat's token, as new_game returned it")
        return holder

    # ----- state ---------------------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the game has ended (its end, a ply cap, or a resignation)."""
        return (
            self.resigned is not None
            or self.game.current_player(self.state) == TERMINAL
            or self.game.is_truncated(self.state)
            or self.plies >= self.game.max_game_length
        )

    def _board(self, seat: int) -> Any:
        return self.render.board_data(self.game, self.game.information_state(self.state, seat))

    def _apply(self, action: int) -> None:
        """Play ``action`` (legal) for the player to move; each MCP seat logs what it sees of it."""
        game, state = self.game, self.state
        actor = game.current_player(state)
        move = game.action_to_str(state, action)
        for s in self.mcp_seats:
            seen = move if s == actor else game.action_to_str_for(state, action, s)
            self.logs[s].append(f"{self.names[actor]}: {seen}")
        game.apply(state, action, self.rng)
        self.plies += 1
        for s in self.mcp_seats:
            board = self._board(s)
            self.logs[s] += [str(line) for line in self.render.events(game, self.boards[s], board)]
            self.boards[s] = board

    def _apply_held(self) -> None:
        """Play the held choices of the MCP seats the engine has reached, in its order."""
        while not self.over and self.error is None:
            seat = self.game.current_player(self.state)
            if seat not in self.pending:
                return
            self._apply(self.pending.pop(seat))

    def _bot_to_move(self) -> bool:
        return not self.over and self.error is None and self.game.current_player(self.state) in self.policies

    # ----- calls ---------------------------------------------------------------------------------------------------
    def submit(self, seat: int, reply: str) -> tuple[int, str]:
        """Seat ``seat``'s move, read by ``parse_reply`` (notation, number, JSON or free text): played now if the
        engine is at the seat, else held until it is (a simultaneous phase). Returns ``(action, notation)``;
        :class:`Refusal` (nothing changed) for a move that is not one of the seat's legal moves now."""
        with self.lock:
            if self.over:
                raise Refusal("the game is over: call result")
            if self.error is not None:
                raise Refusal(f"the game was stopped: {self.error}")
            if seat in self.pending:
                notation = self.game.action_to_str(self.game.information_state(self.state, seat), self.pending[seat])
                raise Refusal(
                    f"you have already chosen {notation!r}: it is played when the other seats' choices are in"
                )
            try:
                action = parse_reply(self.game, self.state, seat, reply)
            except ReplyError as err:
                raise Refusal(f"move refused: {err}") from None
            notation = self.game.action_to_str(self.game.information_state(self.state, seat), action)
            if self.game.current_player(self.state) == seat:
                self._apply(action)
            else:
                self.pending[seat] = action
            self._apply_held()
            return action, notation

    def advance(self) -> None:
        """Play the opponents' moves until an MCP seat must choose or the game ends; their thinking runs outside
        the lock. Returns at once if another thread is doing it (that one plays on, held choices included). An
        opponent that fails or answers an illegal move stops the game with :attr:`error`."""
        with self.lock:
            if self.advancing:
                return
            self.advancing = True
        try:
            while True:
                with self.lock:
                    self._apply_held()
                    if not self._bot_to_move():
                        self.advancing = False
                        return
                    seat = self.game.current_player(self.state)
                    policy = self.policies[seat]
                    decision = decision_from_state(self.game, self.state, seat)
                    plies = self.plies
                failure = None
                try:
                    action = policy.act(decision)
                    if not (_whole(action) and 0 <= action < self.game.num_actions and decision.action_mask[action]):
                        failure = f"the opponent at seat {seat} ({self.specs[seat]}) answered an illegal move"
                except Exception as err:  # noqa: BLE001 - any failure of a policy stops the game, with its reason
                    failure = f"the opponent at seat {seat} ({self.specs[seat]}) failed: {type(err).__name__}: {err}"
                with self.lock:
                    if self.over or self.plies != plies:  # resigned meanwhile
                        continue
                    if failure is not None:
                        self.error = failure
                        continue
                    self._apply(int(action))
        except BaseException:
            with self.lock:
                self.advancing = False
            raise

    def resign(self, seat: int) -> dict[str, Any]:
        """Seat ``seat`` resigns: the game ends, the seat gets -1 and every other seat +1 / (n - 1) (the text
        env's forfeit). Returns the seat's report."""
        with self.lock:
            if self.over:
                raise Refusal("the game is already over: call result")
            self.resigned = seat
            self.pending.clear()
            for s in self.mcp_seats:
                self.logs[s].append(f"{self.names[seat]} resigns.")
            return self._report(seat, "text")

    # ----- what a seat is shown ----------------------------------------------------------------------------------
    def status(self, seat: int, moves: list[Any] | None = None) -> str:
        """``over``, ``halted`` (an opponent failed), ``submitted`` (its choice is held until the others are in),
        ``your_turn`` or ``waiting``; ``moves``: the seat's legal moves now, where already known."""
        if self.over:
            return "over"
        if self.error is not None:
            return "halted"
        if seat in self.pending:
            return "submitted"
        if moves is None:
            moves = legal_moves(self.game, self.state, seat)
        return "your_turn" if moves else "waiting"

    def result(self, seat: int | None = None) -> dict[str, Any] | None:
        """How the game ended (None while live): each seat's return and score, the winners, the seed, and who
        resigned or why it stopped."""
        if not self.over:
            return None
        if self.resigned is not None:
            n = self.game.num_players
            returns = [-1.0 if s == self.resigned else 1.0 / (n - 1) for s in range(n)]
            out: dict[str, Any] = {
                "truncated": False,
                "returns": returns,
                "scores": None,
                "winners": [s for s in range(n) if s != self.resigned],
                "note": f"{self.names[self.resigned]} (seat {self.resigned}) resigned.",
            }
        else:
            ended = seat_view(self.game, self.state, self.mcp_seats[0] if seat is None else seat)["result"]
            out = (
                dict(ended)
                if ended is not None
                else {  # cut at the ply cap before the engine's own end
                    "truncated": True,
                    "returns": [0.0] * self.game.num_players,
                    "scores": None,
                    "winners": [],
                    "note": f"cut at {self.plies} plies: no result",
                }
            )
        out["resigned"] = self.resigned
        out["seed"] = self.seed
        out["plies"] = self.plies
        return out

    def _text(self, seat: int, view: dict[str, Any]) -> str:
        text = seat_text(self.game, self.state, seat)
        if self.resigned is not None:
            return text.rstrip("\n") + f"\n{self.names[self.resigned]} (seat {self.resigned}) resigned: game over.\n"
        if self.error is not None:
            return text.rstrip("\n") + f"\nThe game was stopped: {self.error}\n"
        if seat in self.pending:
            cut = min(
                (i for i in (text.find("You choose at the same time"), text.find("It is your turn.")) if i >= 0),
                default=len(text),
            )
            notation = self.game.action_to_str(self.game.information_state(self.state, seat), self.pending[seat])
            waiting = ", ".join(f"{self.names[s]} (seat {s})" for s in view["to_move"] if s != seat)
            text = (
                text[:cut]
                + f"You have chosen {notation} (face down): it is revealed when every choice is in. Waiting for "
                f"{waiting}.\n"
            )
        return text

    def _report(self, seat: int, form: str) -> dict[str, Any]:
        view = seat_view(self.game, self.state, seat)
        status = self.status(seat, view["legal_moves"])
        out: dict[str, Any] = {
            "game_id": self.id,
            "game": self.game_name,
            "seat": seat,
            "status": status,
            "ply": self.plies,
            "submitted": None,
            "recent": self.logs[seat][-RECENT:],
        }
        if seat in self.pending:
            out["submitted"] = self.game.action_to_str(
                self.game.information_state(self.state, seat), self.pending[seat]
            )
            view["your_turn"] = False
            view["legal_moves"] = []
        if self.over or self.error is not None:
            view["your_turn"] = False
            view["legal_moves"] = []
        view["result"] = self.result(seat)
        view["terminal"] = self.over
        if form in ("json", "both"):
            out["view"] = view
        if form in ("text", "both"):
            out["text"] = self._text(seat, view)
        if self.error is not None:
            out["error"] = self.error
        return out

    def report(self, seat: int, form: str = "both") -> dict[str, Any]:
        """What seat ``seat`` is shown now: ``status``, ``ply``, ``submitted`` (its held choice), ``recent`` (its
        last log lines), and ``view`` (``seat_view`` JSON) and/or ``text`` (``seat_text``) by ``form``."""
        if form not in ("json", "text", "both"):
            raise Refusal('format must be "json", "text" or "both"')
        with self.lock:
            return self._report(seat, form)

    def moves(self, seat: int) -> dict[str, Any]:
        """Seat ``seat``'s legal moves now (none unless ``status`` is ``your_turn``), numbered from 1."""
        with self.lock:
            listed = legal_moves(self.game, self.state, seat)
            status = self.status(seat, listed)
            if status != "your_turn":
                listed = []
            return {
                "game_id": self.id,
                "seat": seat,
                "status": status,
                "moves": [{"number": i, "notation": t, "action": a} for i, (a, t) in enumerate(listed, 1)],
            }

    def public(self) -> dict[str, Any]:
        """What anyone may know of the game (``list_games``): no hand, bid, seed or token."""
        with self.lock:
            over = self.over
            to_move = [] if over else sorted(self.game.seats_to_move(self.state))
            return {
                "game_id": self.id,
                "game": self.game_name,
                "options": self.game.options(),
                "num_players": self.game.num_players,
                "seats": [
                    {"seat": s, "name": self.names[s], "player": MCP if s in self.tokens else self.specs[s]}
                    for s in range(self.game.num_players)
                ],
                "status": "over" if over else "halted" if self.error is not None else "live",
                "ply": self.plies,
                "to_move": to_move,
            }


# ----- the table ------------------------------------------------------------------------------------------------
class GameTable:
    """The live games by id: at most ``limits.max_games`` (a new one beyond is refused, unless a finished game
    can go: the one idle longest), each forgotten ``limits.ttl`` seconds after its last call."""

    FORGOTTEN_KEPT = 4096
    """Dropped ids remembered, with the reason, for the refusal's message."""

    def __init__(self, limits: Limits | None = None, clock: Callable[[], float] = time.monotonic):
        self.limits = limits or Limits()
        self.clock = clock
        self._games: dict[str, SeatGame] = {}
        self._touched: dict[str, float] = {}
        self._dropped: dict[str, str] = {}
        self._reserved = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._games)

    def _finished(self) -> list[str]:
        return [k for k, g in self._games.items() if g.over or g.error is not None]

    def reserve(self) -> None:
        """Hold a place for a game about to be built: :class:`Refusal` when live games and places held fill the
        table (finished games do not count: :meth:`add` drops one if it needs the room); :meth:`add` or
        :meth:`release` gives the place back. Nothing is dropped here, so a new game refused later (bad options)
        has changed nothing."""
        with self._lock:
            self._sweep()
            live = len(self._games) - len(self._finished())
            if live + self._reserved >= self.limits.max_games:
                raise Refusal(
                    f"too many games: this server keeps at most {self.limits.max_games} live games; finish or "
                    f"resign one, or wait for idle ones to expire ({self.limits.ttl:.0f} s after their last call)"
                )
            self._reserved += 1

    def release(self) -> None:
        """Give back a place held by :meth:`reserve` for a game that was not built."""
        with self._lock:
            self._reserved -= 1

    def add(self, game: SeatGame) -> str:
        """Keep ``game`` (in a place held by :meth:`reserve`) under a new random id, returned; when the table is
        full, the finished game idle longest is dropped to make room."""
        with self._lock:
            self._reserved -= 1
            while len(self._games) >= self.limits.max_games and (finished := self._finished()):
                self._drop(min(finished, key=self._touched.__getitem__), "room")
            key = secrets.token_urlsafe(12)
            game.id = key
            self._games[key] = game
            self._touched[key] = self.clock()
            return key

    def get(self, key: Any) -> SeatGame:
        """The live game ``key`` (its idle clock restarts); :class:`Refusal` saying whether it expired, was closed
        to make room, or was never here."""
        with self._lock:
            self._sweep()
            game = self._games.get(key) if isinstance(key, str) and len(key) <= MAX_TOKEN_CHARS else None
            if game is None:
                why = self._dropped.get(key) if isinstance(key, str) else None
                if why == "ttl":
                    text = f"expired: no call for {self.limits.ttl:.0f} s"
                elif why == "room":
                    text = "finished, and dropped to make room for a new game"
                else:
                    text = "unknown: no such game on this server (list_games lists them)"
                raise Refusal(f"game {shown(key)} {text}")
            self._touched[key] = self.clock()
            return game

    def games(self) -> list[SeatGame]:
        """The live games, oldest first."""
        with self._lock:
            self._sweep()
            return list(self._games.values())

    def _drop(self, key: str, why: str) -> None:
        self._games.pop(key, None)
        self._touched.pop(key, None)
        self._dropped[key] = why
        while len(self._dropped) > self.FORGOTTEN_KEPT:
            del self._dropped[next(iter(self._dropped))]

    def _sweep(self) -> None:
        limit = self.clock() - self.limits.ttl
        for key in [k for k, t in self._touched.items() if t < limit]:
            self._drop(key, "ttl")


def catalog(limits: Limits | None = None) -> dict[str, Any]:
    """The registered games, their options and opponents, and the server's limits (the ``catalog`` tool)."""
    limits = limits or Limits()
    games = []
    for name in envs.GAMES:
        info = envs.game_info(name)
        options = []
        for o in envs.game_options(name):
            allowed: Any = list(o.choices) if o.choices is not None else {"from": o.low, "to": o.high}
            options.append({"name": o.name, "default": o.default, "allowed": allowed, "help": o.help})
        games.append(
            {
                "game": name,
                "title": info.title,
                "summary": info.summary,
                "hidden_information": info.hidden_information,
                "options": options,
                "opponents": baseline_names(name),
            }
        )
    return {
        "games": games,
        "opponents": (
            f"a baseline name (random, greedy, ...), a search budget such as search:200 (at most "
            f"search:{MAX_SIMULATIONS}), or a checkpoint under {', '.join(map(str, limits.checkpoint_folders))}"
        ),
        "limits": {
            "max_games": limits.max_games,
            "idle_seconds": limits.ttl,
            "max_request_bytes": limits.max_request_bytes,
            "max_search": MAX_SIMULATIONS,
        },
    }
