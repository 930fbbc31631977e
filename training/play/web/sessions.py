"""Games, replays and their lifetimes on the server; no web framework in here (the routes are in ``app.py``).

A :class:`PlaySession` is one game: the engine, its full state and generator (``default_rng(seed)``, as in
``python -m training play``, so every game saved from the page replays exactly), one policy per bot seat, and per
viewer the board JSON and the move log. A *viewer* is a human seat, or ``None`` for the spectator view, which
exists only in games without a human seat (watch mode) and in replays. A human seat's board and log are built
from ``game.information_state(state, seat)`` only.

Each human seat of a game has its own secret token (given once, to the request that creates the game): a request
for a seat's view, or a move for it, must carry that seat's token, so one player's page never gets another's hand.
A game with a human seat is dealt from the server's own entropy (a seed from the page is refused); its seed is shown
when the game is over, and is in its record.

Sessions live in a :class:`SessionStore` that forgets one ``ttl`` seconds after its last request, finished or
not, keeps at most ``max_items`` and at most ``max_bytes`` of opened record files (the least recently used of
the creator holding the most go first: see :meth:`SessionStore.fit`), and remembers for a while which ids it
dropped and why, so a page can say so.

Errors a user can cause raise :class:`WebError` with an HTTP status and a message; the state is checked before
anything changes, so a refused request changes nothing.
"""

from __future__ import annotations

import json
import math
import secrets
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.common.game import TERMINAL, ConfigError, Game, IllegalActionError
from envs.common.policies import Policy, baseline_arguments, decision_from_state
from training.arena.harness import Forfeit, forfeit_returns, take_transcript
from training.arena.players import baseline_names, make_policy
from training.arena.records import RecordError, replay
from training.arena.tournament import GameRecord
from training.loader import CheckpointError, checkpoint_paths, declared_spec, inside
from training.play.web.views import GameView, view_for
from training.specs import MAX_NETWORK_SIMULATIONS as MAX_NETWORK_SIMULATIONS  # the caps, named here too
from training.specs import MAX_SIMULATIONS as MAX_SIMULATIONS
from training.specs import MAX_TOP_K as MAX_TOP_K
from training.specs import (
    PolicySpecError,
    parse_guided_spec,
    parse_mcts_spec,
    parse_sample_spec,
    parse_temperature,
)

HUMAN = "human"
SPECTATOR_LABEL = "Spectator view: every hand and hidden card is shown"
OPEN_SPECTATOR_LABEL = "Spectator view: the whole board"
"""The label of a game without hidden information (nothing is hidden from anyone)."""


def spectator_label(view: GameView) -> str:
    return SPECTATOR_LABEL if view.hidden_information else OPEN_SPECTATOR_LABEL


STAND_IN = "greedy"
"""The policy that plays a human seat whose player left a game that other humans play on (every game has it)."""
MAX_SEED = 2**31 - 1
MAX_REPLAY_GAMES_LOADED = 4
"""Games of one opened file kept replayed (every position) at a time; others are replayed again when asked for."""

Json = dict[str, Any]


def shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages that quote what a request sent."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class WebError(Exception):
    """A request the server refuses: ``status`` (4xx) and a message for the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


# ----- the store ----------------------------------------------------------------------------------------------------
class SessionStore:
    """Sessions by id, dropped ``ttl`` seconds after their last use; at most ``max_items`` kept, and items with a
    ``weight`` (the bytes of an opened record file) at most ``max_bytes`` together."""

    FORGOTTEN_KEPT = 4096
    """Dropped ids remembered (with the reason) for the "it was closed" message."""

    def __init__(
        self,
        ttl: float = 1800.0,
        max_items: int = 200,
        clock: Callable[[], float] = time.monotonic,
        max_bytes: int = 32 * 2**20,
    ):
        self.ttl = ttl
        self.max_items = max_items
        self.max_bytes = max_bytes
        self.clock = clock
        self._items: dict[str, Any] = {}
        self._touched: dict[str, float] = {}
        self._created: dict[str, float] = {}
        self._dropped: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def held_bytes(self) -> int:
        """The weights of the items kept, together (bytes)."""
        with self._lock:
            return self._weight()

    def _weight(self) -> int:
        return sum(getattr(item, "weight", 0) for item in self._items.values())

    def add(self, item: Any, owner: str = "", creator: str = "") -> str:
        """Store ``item`` under a new random id (returned, and set as ``item.id``) for the client ``owner`` (its
        address) and ``creator`` (the page's tab at that address, or "" for a client that names none); to make
        room, :meth:`fit` drops the least recently used item of the creator that holds the most, so one tab filling
        the store evicts its own items, not another tab's game."""
        with self._lock:
            self._sweep()
            key = secrets.token_urlsafe(9)
            item.id = key
            item.owner = owner
            item.creator = creator
            self._items[key] = item
            self._touched[key] = self._created[key] = self.clock()
            self._fit(key)
            return key

    def fit(self, key: str | None = None) -> None:
        """Bring the store back within its bounds (after an item grew: a replay that replayed a game), keeping
        ``key``: replayed games of other files are forgotten first (they are replayed again when asked for), then
        whole items go: of the address holding the most, of its creator (tab) holding the most, the least
        recently used. Ties go to the adder of ``key`` (its own items first), then to the newest (the one whose
        oldest item is youngest): a program naming a new creator with each request still loses its own items
        before an older tab holding as many."""
        with self._lock:
            self._fit(key)

    def _fit(self, key: str | None) -> None:
        while True:
            over_count = len(self._items) > self.max_items
            if not over_count and self._weight() <= self.max_bytes:
                return
            if not over_count:  # over the byte budget only: forget replayed positions, then drop files, not games
                shed = [
                    k
                    for k in self._touched
                    if k != key and getattr(self._items[k], "shed", None) and self._items[k].loaded_bytes
                ]
                if shed:
                    self._items[min(shed, key=self._touched.__getitem__)].shed()
                    continue
                item = self._items.get(key) if key else None
                if getattr(item, "shed", None) and len(getattr(item, "_games", ())) > 1:
                    item.shed(keep=1)  # the item being used: all but the game it shows
                    continue
            candidates = [k for k in self._touched if k != key and (over_count or getattr(self._items[k], "weight", 0))]
            if not candidates:
                return
            adder = self._items.get(key) if key else None
            for field_name in ("owner", "creator"):
                mine = getattr(adder, field_name, None)
                held: dict[str, float] = {}
                first: dict[str, float] = {}
                for k in candidates:
                    who = getattr(self._items[k], field_name, "")
                    held[who] = held.get(who, 0) + (1 if over_count else self._items[k].weight)
                    first[who] = min(first.get(who, math.inf), self._created.get(k, 0.0))
                biggest = max(held, key=lambda w: (held[w], w == mine, first[w]))
                candidates = [k for k in candidates if getattr(self._items[k], field_name, "") == biggest]
                if field_name == "owner" and getattr(adder, "owner", None) != biggest:
                    adder = None  # another address: its creators are not the adder's
            self._drop(min(candidates, key=self._touched.__getitem__), "room")

    def get(self, key: str, kind: type) -> Any:
        """The live item ``key`` of type ``kind`` (its clock restarts), else :class:`WebError` 404 saying whether
        it expired, was closed to make room, or was never here."""
        with self._lock:
            self._sweep()
            item = self._items.get(key)
            if not isinstance(item, kind):
                why = self._dropped.get(key) if item is None else None
                if why == "ttl":
                    text = f"expired: nothing asked for it for {self.ttl:.0f} s"
                elif why == "room":
                    text = (
                        f"closed to make room: the server keeps at most {self.max_items} games and files "
                        f"({self.max_bytes / 2**20:.0f} MiB of files), the least recently used of the tab that "
                        "made the most go first"
                    )
                elif why == "closed":
                    text = "closed"
                else:
                    text = f"not here: it may have expired (kept for {self.ttl:.0f} s after its last use)"
                raise WebError(404, f"{kind.noun} {shown(key)} {text}")
            self._touched[key] = self.clock()
            return item

    def remove(self, key: str) -> bool:
        with self._lock:
            return self._drop(key, "closed")

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._items)

    def _drop(self, key: str, why: str) -> bool:
        self._touched.pop(key, None)
        self._created.pop(key, None)
        found = self._items.pop(key, None) is not None
        if found:
            self._dropped[key] = why
            while len(self._dropped) > self.FORGOTTEN_KEPT:
                del self._dropped[next(iter(self._dropped))]
        return found

    def _sweep(self) -> None:
        limit = self.clock() - self.ttl
        for key in [k for k, t in self._touched.items() if t < limit]:
            self._drop(key, "ttl")


# ----- results ------------------------------------------------------------------------------------------------------
def result_json(
    game: Game, state: Any, names: list[str], viewer: int | None, truncated: bool, view: GameView | None = None
) -> Json:
    """The result box: returns, scores, the seats sharing first place and a sentence (with the tie-break that
    decided it, where the view knows one)."""
    returns = [float(x) for x in game.returns(state)]
    scores = [float(x) for x in game.scores(state)]
    if truncated:
        return {
            "returns": returns,
            "scores": scores,
            "winners": [],
            "truncated": True,
            "text": "The game was cut at the ply cap: no result.",
        }
    top = max(returns)
    winners = [s for s, r in enumerate(returns) if r == top]

    def who(s: int) -> str:
        return f"player_{s} ({names[s]}{', you' if s == viewer else ''})"

    if len(winners) == len(returns):
        text = "Draw."
    elif len(winners) == 1:
        text = f"{who(winners[0])} wins."
    else:
        text = " and ".join(who(s) for s in winners) + " share first place."
    note = view.result_note(game, state) if view is not None else None
    if note:
        text += " " + note
    return {"returns": returns, "scores": scores, "winners": winners, "truncated": False, "text": text}


def forfeit_result(game: Game, state: Any, names: list[str], viewer: int | None, seat: int) -> Json:
    """The result box of a game that ``seat`` forfeited (a policy gave up: ``llm:...,fallback=forfeit``): it is
    last, every other seat shares first place (:func:`training.arena.harness.forfeit_returns`)."""
    returns = forfeit_returns(game.num_players, seat)
    you = ", you" if seat == viewer else ""
    return {
        "returns": returns,
        "scores": [float(x) for x in game.scores(state)],
        "winners": [s for s in range(game.num_players) if s != seat],
        "truncated": False,
        "forfeit": seat,
        "text": f"player_{seat} ({names[seat]}{you}) forfeited: every other seat shares first place.",
    }


def _build_game(game_name: Any, options: Any) -> Game:
    if not isinstance(game_name, str) or game_name not in envs.GAMES:
        raise WebError(400, f"unknown game {shown(game_name)}; available: {', '.join(envs.GAMES)}")
    if not isinstance(options, dict):
        raise WebError(400, "options must be a JSON object")
    if "render_mode" in options:
        raise WebError(400, "render_mode is not a game option here")
    try:
        return envs.make_game(game_name, **options)
    except (ConfigError, TypeError, ValueError) as err:
        raise WebError(400, f"bad options for {game_name}: {err}") from None


# ----- seat specs ---------------------------------------------------------------------------------------------------
MAX_SPEC = 300
"""Longest seat spec accepted (characters)."""
MAX_TEMPERATURE = 100.0
"""Highest ``sample:PATH:T`` temperature (near uniform already)."""
MIN_TEMPERATURE = 0.01
"""Lowest ``sample:PATH:T`` temperature (the argmax already)."""
UNKNOWN_POLICY = (
    "unknown policy: choose one the page lists (random, a baseline, search:N, or a checkpoint under "
    "the folders it lists: checkpoints/, runs/ or a --checkpoint-dir)"
)
"""The one message for every path that is not a checkpoint the server may load (existing or not)."""


def check_spec(spec: str, seat: int, game_name: str, folders: Sequence[Path], extra: Sequence[str] = ()) -> None:
    """Refuse (400, before anything is built) a seat spec whose arguments are out of range (the caps of
    :mod:`training.specs`, and the page's temperatures) or whose checkpoint is not one the server may load
    (:func:`loadable`): the server loads nothing else, and says the same for a path that exists and one that does
    not (no file-existence oracle). An ``agent:`` seat is checked as the spec its sidecar declares."""
    if len(spec) > MAX_SPEC:
        raise WebError(400, f"seat {seat}: a seat spec has at most {MAX_SPEC} characters")
    if spec == HUMAN or spec in extra:
        return
    name, colon, arg = spec.partition(":")
    if name == "llm":  # it sends requests (and a key) to the URL it names: only the server's operator chooses one
        raise WebError(
            400,
            f"seat {seat}: a language-model seat must be one the page lists (the server's operator names them: "
            "barnyard serve --llm SPEC)",
        )
    try:
        if name in baseline_names(game_name):
            if colon and name == "random":
                raise PolicySpecError("random takes no argument")
            baseline_arguments(game_name, spec)
            return
        if name == "mcts":
            path = parse_mcts_spec(arg)[0]
        elif name == "guided":
            path = parse_guided_spec(arg)[0]
        elif name == "sample":
            path, tail = parse_sample_spec(arg)
            if tail and not MIN_TEMPERATURE <= parse_temperature(tail) <= MAX_TEMPERATURE:
                raise PolicySpecError(
                    f"sample:PATH:T takes a temperature from {MIN_TEMPERATURE:g} to {MAX_TEMPERATURE:g}"
                )
        elif name in ("sym", "agent"):
            path = arg
        else:
            path = spec
    except PolicySpecError as err:
        raise WebError(400, f"seat {seat}: {err}") from None
    if not loadable(Path(path), folders):
        raise WebError(400, f"seat {seat}: {UNKNOWN_POLICY}")
    if name == "agent":  # the checkpoint's declared spec, checked as if asked for (never another agent:)
        try:
            declared = declared_spec(path, folders)
        except CheckpointError as err:  # a file the server may load (listed): its fault is no secret
            raise WebError(400, f"seat {seat}: {err}") from None
        check_spec(declared, seat, game_name, folders)


def loadable(path: Path, folders: Sequence[Path]) -> bool:
    """Whether the checkpoint at ``path`` (either file or their stem, relative to the working folder or absolute)
    is one the server loads: both its files, the weights and the sidecar, regular files that lie under one of
    ``folders`` as named and once every link is followed (:func:`training.loader.inside`). The one rule for what
    the server loads and what the catalogue lists; :func:`training.loader.read_bounded` applies it again to each
    file it opens."""
    try:
        return all(inside(f, folders) and f.resolve().is_file() for f in checkpoint_paths(path))
    except (OSError, ValueError, RuntimeError):
        return False


# ----- a game -------------------------------------------------------------------------------------------------------
@dataclass
class _Viewer:
    """What one viewer has been shown: the current board JSON and the move log."""

    board: Json
    log: list[Json] = field(default_factory=list)


class PlaySession:
    """One game from the page: humans and policies at the seats, stepped one move per request."""

    noun = "game"

    def __init__(
        self,
        game_name: Any,
        options: Any,
        seats: Any,
        seed: Any = None,
        policies: dict[int, Policy] | None = None,
        start: Any = None,
        checkpoint_folders: Sequence[Path] | None = None,
    ):
        """``seats``: ``"human"`` or a policy spec per seat. ``policies`` replaces the policies of some seats with
        ready objects; ``start`` is a ready initial state instead of the one the seed deals (tests; such a game
        has no record, since its seed does not replay it). ``checkpoint_folders``: where checkpoints may be
        loaded from (None: anywhere, for tests and scripts; the app always gives its folders). Raises
        :class:`WebError` 400 for anything wrong, before anything starts."""
        self.id = ""
        self.game = _build_game(game_name, options)
        self.game_name: str = game_name
        self.options = dict(options)
        self.view: GameView = view_for(game_name)
        n = self.game.num_players
        if not isinstance(seats, list) or len(seats) != n or not all(isinstance(s, str) and s for s in seats):
            raise WebError(
                400,
                f"{game_name} with these options has {n} seats: give a list of {n} seat specs "
                f"('{HUMAN}', random, greedy, search[:N] or a checkpoint path)",
            )
        self.seats = [s.strip() for s in seats]
        self.humans = [i for i, s in enumerate(self.seats) if s == HUMAN]
        if checkpoint_folders is not None:
            for i, spec in enumerate(self.seats):
                if i not in (policies or {}):
                    check_spec(spec, i, game_name, checkpoint_folders)
        if seed is not None and self.humans and start is None:
            raise WebError(
                400,
                "a seed is taken only for a game without a human seat (watch mode): with a human "
                "seat the server deals from its own entropy and shows the seed when the game is over",
            )
        if seed is None:
            seed = secrets.randbelow(MAX_SEED)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise WebError(400, f"seed must be an integer from 0 to {MAX_SEED}")
        self.seed = seed
        self.tokens: dict[int, str] = {i: secrets.token_urlsafe(16) for i in self.humans}
        """Each human seat's secret: a request for that seat's view or move must carry it."""
        self.left: dict[int, str] = {}
        """Human seats that closed the game, with their former tokens (refused from then on)."""
        self.stand_ins: dict[int, int] = {}
        """Human seats that :data:`STAND_IN` plays since their player left, with the ply it took over at."""
        self.policies: list[Policy | None] = []
        for i, spec in enumerate(self.seats):
            if spec == HUMAN:
                self.policies.append(None)
                continue
            policy = (policies or {}).get(i)
            if policy is None:
                try:
                    policy = make_policy(spec, game_name, self.options, seed * 101 + i, checkpoint_folders)
                except ImportError as err:
                    raise WebError(
                        400,
                        f"seat {i}: {shown(spec, 80)} needs a missing package ({err}); checkpoints need "
                        'torch: pip install -e ".[train]"',
                    ) from None
                except Exception as err:  # noqa: BLE001 - an unreadable file, a budget a baseline does not take
                    if isinstance(err, ValueError) and type(err) is not ValueError:
                        # UnknownPolicyError, CheckpointError, GuidedSearchError: messages for a user
                        raise WebError(400, f"seat {i}: {err}") from None
                    raise WebError(400, f"seat {i}: {shown(spec, 80)} could not be loaded as a policy") from None
            policy.reset(seed * 101 + i)
            self.policies.append(policy)
        self.names = self.view.seat_names(self.game)
        self.rng = np.random.default_rng(seed)
        self.state = self.game.initial_state(self.rng)
        self.replayable = start is None
        if start is not None:
            self.state = self.game.clone(start)
        self.actions: list[int] = []
        self.error: str | None = None
        self.forfeit: int | None = None
        """The seat whose policy gave the game up (:class:`~training.arena.harness.Forfeit`): the game is over."""
        self.transcripts: list[Json] = []
        """The transcripts of the seats' decisions (``llm:`` seats), for the record only: they hold what each such
        seat saw."""
        self.thinking = False
        self.lock = threading.Lock()
        self.viewers: dict[int | None, _Viewer] = {}
        for v in self.humans or [None]:
            board = self._board(v)
            entry = _Viewer(board)
            entry.log += [{"ply": None, "seat": None, "text": t} for t in self.view.events(self.game, None, board)]
            self.viewers[v] = entry

    # ----- views ----------------------------------------------------------------------------------------------------
    def _view_state(self, viewer: int | None) -> Any:
        return self.game.clone(self.state) if viewer is None else self.game.information_state(self.state, viewer)

    def _board(self, viewer: int | None) -> Json:
        return self.view.board(self.game, self._view_state(viewer), viewer)

    @property
    def over(self) -> bool:
        return self.game.current_player(self.state) == TERMINAL or self.truncated or self.forfeit is not None

    @property
    def truncated(self) -> bool:
        return self.game.is_truncated(self.state) or len(self.actions) >= self.game.max_game_length

    def status(self, viewer: int | None) -> str:
        """``over``, ``halted`` (a policy failed), ``your_turn``, ``other_human`` or ``bot``."""
        if self.over:
            return "over"
        if self.error:
            return "halted"
        seat = self.game.current_player(self.state)
        if self.policies[seat] is None:
            return "your_turn" if seat == viewer else "other_human"
        return "bot"

    def authorize(self, seat: Any, token: str | None) -> int | None:
        """The viewer a request may have: the human seat whose ``token`` it carries (``seat``, if given, must be
        that seat), or the spectator in a game without a human seat. Anything else is refused (400 for a seat that
        is not a number, 403 otherwise), before anything changes: a player's page never gets another seat's view,
        nor the full state."""
        if seat is not None and seat != "":
            if isinstance(seat, str) and seat.isdigit() and len(seat) <= 3:
                seat = int(seat)
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise WebError(400, f"seat must be a seat number, got {shown(seat)}")
        else:
            seat = None
        if not self.humans:
            if seat is not None:
                raise WebError(403, f"seat {seat} is not a human seat: this game has only the spectator view")
            return None
        holder = None
        if isinstance(token, str) and len(token) <= 64:
            for s, secret in self.tokens.items():
                if secrets.compare_digest(secret.encode(), token.encode()):
                    holder = s
        if (
            holder is None
            and isinstance(token, str)
            and len(token) <= 64
            and any(secrets.compare_digest(old.encode(), token.encode()) for old in self.left.values())
        ):
            raise WebError(403, "this seat closed the game: its token no longer works (the other seats play on)")
        if holder is None:
            raise WebError(
                403,
                "this game has human seats: a request needs the token of the seat it is for "
                "(from that seat's link, given when the game was created)",
            )
        if seat is not None and seat != holder:
            raise WebError(403, f"this token is player_{holder}'s, not player_{seat}'s")
        return holder

    def leave(self, seat: int) -> bool:
        """Seat ``seat`` (a human, already authorized) closes the game for itself: its token stops working, the
        other seats play on, and :data:`STAND_IN` plays the seat from now on (else the others would wait for its
        move for ever); every other seat's log says so. True when no human seat is left (the store then forgets
        the game)."""
        with self.lock:
            secret = self.tokens.pop(seat, None)
            if secret is None:
                return not self.tokens
            self.left[seat] = secret
            if not self.tokens:
                return True
            if not self.over and self.policies[seat] is None:
                policy = make_policy(STAND_IN, self.game_name, self.options, seed=self.seed * 101 + seat)
                policy.reset(self.seed * 101 + seat)
                self.policies[seat] = policy
                self.stand_ins[seat] = len(self.actions)
                self.viewers.pop(seat, None)
                text = (
                    f"player_{seat} ({self.names[seat]}) left the game at ply {len(self.actions)}: "
                    f"{STAND_IN} plays their seat from here"
                )
                for seen in self.viewers.values():
                    seen.log.append({"ply": None, "seat": seat, "text": text})
            return False

    def seat_label(self, seat: int) -> str:
        """Who plays ``seat``: its spec, or ``human, then greedy from ply N`` for a seat whose player left."""
        if seat in self.stand_ins:
            return f"{self.seats[seat]}, then {STAND_IN} from ply {self.stand_ins[seat]} (the player left)"
        return self.seats[seat]

    def default_viewer(self) -> int | None:
        """The view the creator's page opens with: the human to move, else the first human, else the spectator."""
        if not self.humans:
            return None
        current = self.game.current_player(self.state)
        return current if current in self.humans else self.humans[0]

    def payload(self, viewer: int | None) -> Json:
        """Everything the page shows, for one viewer."""
        with self.lock:
            return self._payload(viewer)

    def _payload(self, viewer: int | None) -> Json:
        seen = self.viewers[viewer]
        status = self.status(viewer)
        moves: list[Json] = []
        if status == "your_turn":
            view_state = self._view_state(viewer)
            moves = self.view.moves(self.game, view_state, seen.board, self.game.legal_actions(self.state))
        over = status == "over"
        secret = bool(self.humans) and not over  # a player who knew the seed could work out the hidden cards
        return {
            "kind": "game",
            "id": self.id,
            "mode": "play" if self.humans else "watch",
            "game": self.game_name,
            "title": self.view.title,
            "options": self.game.options(),
            "seats": [
                {
                    "seat": i,
                    "agent": f"player_{i}",
                    "name": self.names[i],
                    "policy": self.seat_label(i),
                    "human": self.policies[i] is None,
                    "left": i in self.stand_ins,
                }
                for i in range(len(self.seats))
            ],
            "viewer": viewer,
            "view_label": (
                spectator_label(self.view)
                if viewer is None
                else f"Your view as player_{viewer} ({self.names[viewer]}): only what this seat may see"
            ),
            "hidden_information": self.view.hidden_information,
            "drawing": self.view.drawing,
            "status": status,
            "to_move": self.game.current_player(self.state),
            "ply": len(self.actions),
            "thinking": self.thinking,
            "board": seen.board,
            "moves": moves,
            "log": seen.log,
            "scores": [float(x) for x in self.game.scores(self._view_state(viewer))],
            "result": (
                None
                if not over
                else result_json(self.game, self.state, self.names, viewer, self.truncated, self.view)
                if self.forfeit is None
                else forfeit_result(self.game, self.state, self.names, viewer, self.forfeit)
            ),
            "error": self.error,
            "seed": None if secret else self.seed,
            "settings": {"game": self.game_name, "options": self.options, "seats": list(self.seats)},
        }

    # ----- moves ----------------------------------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        """Play ``action`` (already checked legal) and update every viewer's board and log."""
        game, state = self.game, self.state
        actor = game.current_player(state)
        before = {v: self._view_state(v) for v in self.viewers}
        game.apply(state, action, self.rng)
        ply = len(self.actions)
        self.actions.append(action)
        for v, seen in self.viewers.items():
            if self.view.hidden_from(game, before[v], actor, action, v):
                text = self.view.hidden_text(game, before[v], actor, action)
            else:
                text = game.action_to_str(before[v], action)
            board = self._board(v)
            seen.log.append({"ply": ply, "seat": actor, "text": text})
            seen.log += [{"ply": None, "seat": None, "text": t} for t in self.view.events(game, seen.board, board)]
            seen.board = board

    def move(self, seat: Any, action: Any = None, notation: Any = None) -> None:
        """A human's move, by action id or notation. 409 when it is not that seat's turn; 400 when illegal."""
        with self.lock:
            if self.over:
                raise WebError(409, "the game is over")
            if self.error:
                raise WebError(409, f"the game was stopped: {self.error}")
            current = self.game.current_player(self.state)
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise WebError(400, f"give the moving seat as an integer, got {shown(seat)}")
            if seat not in self.humans or self.policies[seat] is not None:
                raise WebError(403, f"seat {seat} is not a human seat of this game")
            if seat != current:
                raise WebError(409, f"it is player_{current}'s turn, not player_{seat}'s")
            if notation is not None:
                if not isinstance(notation, str):
                    raise WebError(400, "'move' must be a string in the game's notation")
                try:
                    action = self.game.str_to_action(self.state, notation)
                except IllegalActionError as err:
                    raise WebError(400, f"not understood: {err}") from None
            if isinstance(action, bool) or not isinstance(action, int):
                raise WebError(400, f"'action' must be an integer action id, got {shown(action)}")
            if not 0 <= action < self.game.num_actions or not self.game.legal_mask(self.state)[action]:
                raise WebError(400, f"action {action} is not a legal move here")
            self._apply(action)

    def step(self) -> None:
        """Let the bot to move play one move. Its thinking runs outside the lock; a second step meanwhile is 409.
        A policy that fails (raises, or answers an illegal move) stops the game with an error for the page."""
        with self.lock:
            if self.over:
                raise WebError(409, "the game is over")
            if self.error:
                raise WebError(409, f"the game was stopped: {self.error}")
            if self.thinking:
                raise WebError(409, "a move is already being computed")
            seat = self.game.current_player(self.state)
            policy = self.policies[seat]
            if policy is None:
                raise WebError(409, f"player_{seat} is a human: waiting for their move")
            decision = decision_from_state(self.game, self.state, seat)
            self.thinking = True
        try:
            forfeit = None
            try:
                action = policy.act(decision)
                failure = None
                if not (
                    isinstance(action, (int, np.integer))
                    and 0 <= action < self.game.num_actions
                    and decision.action_mask[action]
                ):
                    failure = f"policy {self.seat_label(seat)!r} (player_{seat}) answered an illegal move {action!r}"
            except Forfeit as err:
                forfeit, failure = err, None
            except Exception as err:  # noqa: BLE001 - any failure of a policy is shown on the page
                failure = f"policy {self.seat_label(seat)!r} (player_{seat}) failed: {type(err).__name__}: {err}"
            with self.lock:
                entry = take_transcript(policy, len(self.actions))
                if entry is not None:
                    self.transcripts.append(entry)
                if failure:
                    self.error = failure
                elif forfeit is not None:
                    self.forfeit = seat
                    text = f"player_{seat} ({self.names[seat]}) forfeits: {forfeit.reason}"
                    for seen in self.viewers.values():
                        seen.log.append({"ply": None, "seat": seat, "text": text})
                else:
                    self._apply(int(action))
        finally:
            self.thinking = False

    def record(self) -> GameRecord:
        """The finished game as a record (``--record`` format); 409 before the end (it holds every hidden move)."""
        with self.lock:
            if not self.over:
                raise WebError(409, "the record is available when the game is over (it shows every hidden card)")
            if not self.replayable:
                raise WebError(409, "this game started from a given position: its seed does not replay it")
            return GameRecord(
                game=self.game_name,
                options=self.game.options(),
                seed=self.seed,
                seats=[self.seat_label(i) for i in range(len(self.seats))],
                actions=list(self.actions),
                returns=(
                    [float(x) for x in self.game.returns(self.state)]
                    if self.forfeit is None
                    else forfeit_returns(self.game.num_players, self.forfeit)
                ),
                scores=[float(x) for x in self.game.scores(self.state)],
                truncated=self.truncated,
                forfeit=self.forfeit,
                transcripts=list(self.transcripts),
            )


# ----- compiling the searches -------------------------------------------------------------------------------------
def warm_searches(games: Sequence[str] | None = None) -> dict[str, float]:
    """Compile (or load from numba's cache) each game's ``search`` kernels with one small search from the start, so
    that the first search move a page asks for does not wait for numba (26-32 s a game on a fresh install, about
    0.2 s from the cache). Returns the seconds each game took. The app runs it in a background thread at
    start-up."""
    took: dict[str, float] = {}
    for name in games or envs.GAMES:
        t0 = time.perf_counter()
        game = _build_game(name, {})
        policy = make_policy("search:8", name, {}, seed=0)
        policy.reset(0)
        state = game.initial_state(np.random.default_rng(0))
        policy.act(decision_from_state(game, state, game.current_player(state)))
        took[name] = time.perf_counter() - t0
    return took


# ----- replays ------------------------------------------------------------------------------------------------------
MAX_RECORD_PLIES = 100_000


def check_record(index: int, record: Json, players: dict[tuple[str, str], int] | None = None) -> None:
    """Refuse (400, a plain message) a record the replay page cannot use: its fields of the wrong types, and
    (given ``players``, a cache of seat counts by game and options, filled here) a seat count that does not match
    its game's."""

    def fail(what: str) -> None:
        raise WebError(400, f"game {index} of the file: {what}")

    def number(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    if record.get("game") not in envs.GAMES:
        fail(f"unknown game {shown(record.get('game'))}; the games are {', '.join(envs.GAMES)}")
    if not isinstance(record.get("options"), dict):
        fail("'options' must be an object")
    seed = record.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        fail("'seed' must be a whole number from 0")
    actions = record.get("actions")
    if not (
        isinstance(actions, list)
        and len(actions) <= MAX_RECORD_PLIES
        and all(isinstance(a, int) and not isinstance(a, bool) and 0 <= a < 2**31 for a in actions)
    ):
        fail(f"'actions' must be a list of at most {MAX_RECORD_PLIES} action ids")
    seats = record.get("seats")
    if seats is not None and not (
        isinstance(seats, list) and all(isinstance(x, str) and len(x) <= MAX_SPEC for x in seats)
    ):
        fail("'seats' must be a list of policy names, one per seat")
    for key in ("returns", "scores"):
        values = record.get(key)
        if values is not None and not (isinstance(values, list) and all(map(number, values))):
            fail(f"'{key}' must be a list of numbers, one per seat")
    if not isinstance(record.get("truncated", False), bool):
        fail("'truncated' must be true or false")
    forfeit = record.get("forfeit")
    if forfeit is not None and (isinstance(forfeit, bool) or not isinstance(forfeit, int) or forfeit < 0):
        fail("'forfeit' must be the number of the seat that forfeited")
    transcripts = record.get("transcripts")
    if transcripts is not None and not (
        isinstance(transcripts, list) and all(isinstance(t, dict) and _whole(t.get("ply")) for t in transcripts)
    ):
        fail("'transcripts' must be a list of objects, each with the 'ply' of its decision")
    if players is not None:
        key = (record["game"], json.dumps(record["options"], sort_keys=True))
        if key not in players:
            try:
                players[key] = _build_game(record["game"], record["options"]).num_players
            except WebError as err:
                fail(err.message)
        for key_name in ("seats", "returns", "scores"):
            if record.get(key_name) is not None and len(record[key_name]) != players[key]:
                fail(f"'{key_name}' must have one entry per seat ({players[key]})")
        if forfeit is not None and forfeit >= players[key]:
            fail(f"'forfeit' must be a seat from 0 to {players[key] - 1}")


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**31


MAX_TRANSCRIPT_TEXT = 50_000
"""The longest text of a transcript (a prompt, a reply) a replay sends the page; longer is cut."""
MAX_TRANSCRIPT_ASKS = 20


def transcript_json(entry: Json) -> Json:
    """A record's transcript entry (one decision of an ``llm:`` seat) as the replay page shows it: only the known
    fields, strings cut at :data:`MAX_TRANSCRIPT_TEXT`, numbers only where numbers belong (a record file is the
    user's, not ours)."""

    def text(value: Any) -> str | None:
        return value[:MAX_TRANSCRIPT_TEXT] if isinstance(value, str) else None

    def num(value: Any) -> float | int | None:
        finite = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        return value if finite else None

    asks = entry.get("attempts") if isinstance(entry.get("attempts"), list) else []
    return {
        "ply": entry["ply"],
        "seat": entry.get("seat") if _whole(entry.get("seat")) else None,
        **{k: text(entry.get(k)) for k in ("policy", "model", "system", "prompt", "move", "fallback")},
        "attempts": [
            {
                "attempt": num(a.get("attempt")),
                "latency_s": num(a.get("latency_s")),
                "tokens": (
                    {k: num(a["tokens"].get(k)) for k in ("prompt", "completion", "total")}
                    if isinstance(a.get("tokens"), dict)
                    else None
                ),
                **{k: text(a.get(k)) for k in ("feedback", "reply", "move", "refusal", "error")},
            }
            for a in asks[:MAX_TRANSCRIPT_ASKS]
            if isinstance(a, dict)
        ],
    }


def approx_bytes(obj: Any) -> int:
    """Memory held by ``obj`` and everything it refers to (containers, instance fields, numpy buffers), each object
    counted once: what a replayed game costs the server, for the store's byte budget."""
    seen: set[int] = set()
    todo = [obj]
    total = 0
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, np.ndarray):
            total += sys.getsizeof(x) + (x.nbytes if x.base is not None else 0)
            if x.dtype == object:
                todo.extend(x.ravel().tolist())
            continue
        total += sys.getsizeof(x)
        if isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            todo.extend(x)
        elif type(x).__module__.split(".")[0] in ("envs", "training"):  # game states and engines, not code
            if hasattr(x, "__dict__"):
                todo.append(vars(x))
            for cls in type(x).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if isinstance(name, str) and hasattr(x, name):
                        todo.append(getattr(x, name))
    return total


@dataclass
class _Replayed:
    """One game of an opened file, replayed: each position as the engine's JSON snapshot (a string: nothing for the
    garbage collector to walk, where the positions kept as objects had each of its full collections walk every
    position of every file replayed, up to 140 ms at a time holding the interpreter; and less memory: a ten-player
    Boaring game 0.48 MB, was 1.8), the spectator's log (dicts of numbers and strings, which the collector does
    not track either) and where each ply's log ends, and the bytes these hold."""

    key: str
    snapshots: list[str]
    log: list[Json]
    log_at: list[int]
    size: int


class ReplaySession:
    """A record file opened in the page: every game of it, replayed on demand, stepped ply by ply. Its
    :attr:`weight`, which the store counts against its byte budget, is what the server holds for it: ``file_bytes``
    (the file as sent, standing for its parsed records, whose actions are kept as int32 arrays) plus the
    positions of the games replayed so far and their engines (:attr:`loaded_bytes`, which :meth:`shed` frees)."""

    noun = "replay"

    def __init__(self, records: Sequence[Json], name: str = "", weight: int = 0):
        self.id = ""
        self.owner = ""
        self.name = name
        self.records = [
            dict(r, actions=np.asarray(r["actions"], dtype=np.int32)) if isinstance(r.get("actions"), list) else dict(r)
            for r in records
        ]
        self.file_bytes = weight
        self._games: dict[int, _Replayed] = {}
        self._engines: dict[str, tuple[Game, int]] = {}
        """The engines of the games kept, by game and options, with their bytes: one for the file's games of the
        same options (a four-player Battle Sheep engine is 2.4 MB and takes 0.1 s to build)."""
        self.lock = threading.Lock()

    @property
    def loaded_bytes(self) -> int:
        """Bytes of the replayed games kept (their positions and logs) and of their engines."""
        with self.lock:
            return sum(g.size for g in self._games.values()) + sum(size for _, size in self._engines.values())

    @property
    def weight(self) -> int:
        return self.file_bytes + self.loaded_bytes

    def shed(self, keep: int = 0) -> None:
        """Forget the replayed games but the ``keep`` most recently used (they are replayed again when asked for)."""
        with self.lock:
            for index in list(self._games)[: max(0, len(self._games) - keep)]:
                del self._games[index]
            self._drop_engines()

    def _drop_engines(self) -> None:
        used = {g.key for g in self._games.values()}
        for key in [k for k in self._engines if k not in used]:
            del self._engines[key]

    def summary(self) -> Json:
        games = []
        for i, r in enumerate(self.records):
            games.append(
                {
                    "index": i,
                    "game": r.get("game"),
                    "options": r.get("options"),
                    "seats": r.get("seats"),
                    "seed": r.get("seed"),
                    "plies": len(r.get("actions", ())),
                    "returns": r.get("returns"),
                }
            )
        return {"kind": "replay_file", "id": self.id, "name": self.name, "games": games}

    def _engine(self, record: Json) -> tuple[str, Game]:
        key = json.dumps([record["game"], record["options"]], sort_keys=True)
        with self.lock:
            kept = self._engines.get(key)
        if kept is None:
            engine = _build_game(record["game"], record["options"])
            kept = (engine, approx_bytes(engine))
            with self.lock:
                kept = self._engines.setdefault(key, kept)
        return key, kept[0]

    def _replay(self, index: int) -> _Replayed:
        """Game ``index`` replayed. Keeps nothing itself (but its engine), so it runs without the lock."""
        record = self.records[index]
        if isinstance(record.get("actions"), np.ndarray):
            record = dict(record, actions=record["actions"].tolist())
        check_record(index, record)
        key, engine = self._engine(record)
        num_players = engine.num_players
        if len(record["actions"]) > engine.max_game_length:
            raise WebError(
                400, f"game {index} of the file has more moves than a game can have ({engine.max_game_length})"
            )
        if record.get("seats") is not None and len(record["seats"]) != num_players:
            raise WebError(400, f"game {index} of the file: 'seats' must name {num_players} seats")
        for name in ("returns", "scores"):
            if record.get(name) is not None and len(record[name]) != num_players:
                raise WebError(400, f"game {index} of the file: '{name}' must have {num_players} numbers")
        view = view_for(record["game"])
        snapshots: list[str] = []
        log: list[Json] = []
        log_at: list[int] = []
        board = None
        try:
            previous = None
            for game, state, action in replay(record, engine):
                if action is not None:
                    log.append(
                        {
                            "ply": len(snapshots) - 1,
                            "seat": game.current_player(previous),
                            "text": game.action_to_str(previous, action),
                        }
                    )
                new_board = view.board(game, state, None)
                log += [{"ply": None, "seat": None, "text": t} for t in view.events(game, board, new_board)]
                board = new_board
                log_at.append(len(log))
                previous = game.clone(state)
                snapshots.append(json.dumps(game.state_to_json(state), separators=(",", ":")))
        except (RecordError, ConfigError, TypeError, ValueError) as err:
            raise WebError(400, f"game {index} of the file does not replay: {err}") from None
        return _Replayed(key, snapshots, log, log_at, approx_bytes((snapshots, log, log_at)))

    def _entry(self, index: int, build: bool) -> _Replayed | None:
        """Game ``index`` replayed, kept or replayed now (outside the lock: a game kept is served meanwhile);
        None if it is not kept and ``build`` is false."""
        with self.lock:
            entry = self._games.pop(index, None)
            if entry is not None:
                self._games[index] = entry  # most recently used last
                return entry
        if not build:
            return None
        entry = self._replay(index)
        with self.lock:
            self._games.pop(index, None)
            self._games[index] = entry
            while len(self._games) > MAX_REPLAY_GAMES_LOADED:
                del self._games[next(iter(self._games))]
            self._drop_engines()
        return entry

    def _index(self, index: Any) -> int:
        try:
            index = int(index)
        except (TypeError, ValueError):
            raise WebError(400, "game index and ply must be integers") from None
        if not 0 <= index < len(self.records):
            raise WebError(404, f"the file holds {len(self.records)} games; there is no game {index}")
        return index

    def loaded(self, index: Any) -> bool:
        """Whether game ``index`` is kept replayed (a :meth:`payload` for it replays nothing)."""
        try:
            return self._index(index) in self._games
        except WebError:
            return True  # refused at once, without replaying anything

    def payload(self, index: Any, ply: Any, build: bool = True) -> Json | None:
        """The spectator view of game ``index`` after ``ply`` moves (0 = the start); None, with ``build`` false,
        when that game is not kept replayed (the app replays games in worker threads one at a time: replaying
        holds the interpreter, 5-100 ms a game)."""
        index = self._index(index)
        try:
            ply = int(ply)
        except (TypeError, ValueError):
            raise WebError(400, "game index and ply must be integers") from None
        entry = self._entry(index, build)
        if entry is None:
            return None
        plies = len(entry.snapshots) - 1
        if not 0 <= ply <= plies:
            raise WebError(404, f"game {index} has plies 0 to {plies}; there is no ply {ply}")
        record = self.records[index]
        view = view_for(record["game"])
        with self.lock:
            game = self._engines[entry.key][0] if entry.key in self._engines else None
        if game is None:  # shed meanwhile, with its engine
            game = _build_game(record["game"], record["options"])
        state = game.state_from_json(json.loads(entry.snapshots[ply]))
        log = entry.log
        names = view.seat_names(game)
        seats = record.get("seats") or ["?"] * game.num_players
        last = ply == plies
        forfeit = record.get("forfeit") if last else None
        over = last and (game.current_player(state) == TERMINAL or bool(record.get("truncated")) or forfeit is not None)
        shown_plies = {ply - 1} | ({ply} if forfeit is not None else set())  # the move that led here; a forfeit
        transcripts = [transcript_json(t) for t in record.get("transcripts") or () if t["ply"] in shown_plies]
        return {
            "kind": "replay",
            "id": self.id,
            "index": index,
            "mode": "replay",
            "game": record["game"],
            "title": view.title,
            "options": game.options(),
            "seats": [
                {
                    "seat": i,
                    "agent": f"player_{i}",
                    "name": names[i],
                    "policy": str(seats[i]),
                    "human": seats[i] == HUMAN,
                }
                for i in range(game.num_players)
            ],
            "viewer": None,
            "view_label": spectator_label(view),
            "hidden_information": view.hidden_information,
            "drawing": view.drawing,
            "status": "over" if over else "replay",
            "to_move": game.current_player(state),
            "ply": ply,
            "plies": plies,
            "board": view.board(game, state, None),
            "moves": [],
            "log": log[: entry.log_at[ply]],
            "scores": [float(x) for x in game.scores(state)],
            "result": (
                None
                if not over
                else result_json(game, state, names, None, bool(record.get("truncated")), view)
                if forfeit is None
                else forfeit_result(game, state, names, None, forfeit)
            ),
            "error": None,
            "seed": record.get("seed"),
            "forfeit": forfeit,
            "transcripts": transcripts,
        }
