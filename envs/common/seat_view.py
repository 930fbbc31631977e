"""What one seat may know, as JSON and as prompt text, and a reply -> move parser: for language-model players, the
MCP server and the OpenSpiel bridge's structs (``docs/llm.md``).

Everything a seat is shown is built from its *view state*, ``game.information_state(state, seat)`` (the whole state
in a perfect-information game; hidden hands and face-down cards replaced by placeholders in the others), by the
game's own code: the board is its ``render.py``'s ``board_data`` (what the web page sends a player), the picture
is ``game.render_for(state, seat)``, the moves are ``game.seats_to_move`` and ``game.action_to_str`` (the game's
one notation). So nothing here knows a game, and nothing a seat may not know can get into its view.

* :func:`seat_view`: a JSON-able dict of what one seat may know.
* :func:`seat_text`: the same as prompt text (a short rules summary, the picture, the numbered legal moves, how to
  answer).
* :func:`legal_moves`: ``(action id, notation)`` of the seat's legal moves, ascending by action id; a move's
  *number* is its 1-based place in this list.
* :func:`parse_reply`: a model's reply -> one legal action of the seat, or :class:`ReplyError` saying why not.

Simultaneous phases (Boaring's face-down bids): every seat yet to choose is to move and is shown its own legal
moves; the engine still takes the choices one seat at a time (``game.current_player``), each hidden from the others
until all are in.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from envs.common import registry
from envs.common.game import TERMINAL, Game, IllegalActionError

__all__ = [
    "MAX_REPLY_CHARS",
    "ReplyError",
    "legal_moves",
    "parse_reply",
    "seat_text",
    "seat_view",
    "spectator_view",
]

MAX_REPLY_CHARS = 20_000
"""The longest reply :func:`parse_reply` reads; a longer one is refused (no work grows past this)."""
MAX_ANSWER_CHARS = 200
"""The longest answer (the part of a reply that names the move) handed to a game's notation parser."""
VIEW_FORMAT = "barnyard-seat-view/1"
"""The ``format`` field of :func:`seat_view`: changes when a field changes meaning."""


class ReplyError(ValueError):
    """A reply that names no move this seat may make now; the message says why, in words a model can act on."""


# ----- the view ----------------------------------------------------------------------------------------------------
def _check_seat(game: Game, seat: Any) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be a seat 0..{game.num_players - 1}, not {seat!r}")
    return int(seat)


def _info(game: Game) -> registry.GameInfo | None:
    """The game's descriptor, or None for an engine that was never registered."""
    try:
        return registry.get(game.name)
    except ValueError:
        return None


def _over(game: Game, state: Any) -> bool:
    return game.current_player(state) == TERMINAL or game.is_truncated(state)


def _to_move(game: Game, view_state: Any) -> dict[int, list[int]]:
    """Each seat that has to choose now, with its legal actions, ascending (exact for the view's own seat only)."""
    if _over(game, view_state):
        return {}
    return {int(s): sorted({int(a) for a in actions}) for s, actions in game.seats_to_move(view_state).items()}


def _seat_names(game: Game, info: registry.GameInfo | None) -> list[str]:
    if info is not None:
        try:
            return [str(name) for name in info.room("render").seat_names(game)]
        except (ImportError, AttributeError):
            pass
    return [f"p{s}" for s in range(game.num_players)]


def _json_safe(value: Any) -> Any:
    """``value`` with numpy scalars and arrays turned into Python numbers and lists (what ``json.dumps`` takes)."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return _json_safe(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def _numbers(values: Any) -> list[float] | None:
    try:
        return [float(v) for v in np.asarray(values, dtype=np.float64).reshape(-1)]
    except (TypeError, ValueError):
        return None


def _result(game: Game, state: Any, info: registry.GameInfo | None) -> dict[str, Any] | None:
    """How a finished game ended (public once it is over): each seat's return and score, the winners, a note."""
    if not _over(game, state):
        return None
    returns = [float(r) for r in game.returns(state)]
    best = max(returns)
    note = None
    if info is not None:
        try:
            note = info.room("render").result_note(game, state)
        except (ImportError, AttributeError):
            note = None
    return {
        "truncated": bool(game.is_truncated(state) and game.current_player(state) != TERMINAL),
        "returns": returns,
        "scores": _numbers(game.scores(state)),
        "winners": [s for s, r in enumerate(returns) if r == best and r > min(returns)],
        "note": note,
    }


def _board(game: Game, view_state: Any, info: registry.GameInfo | None) -> Any:
    """The game's own board JSON of ``view_state`` (``render.board_data``, what the web page is sent)."""
    if info is None:
        return None
    return _json_safe(info.room("render").board_data(game, view_state))


def _view(game: Game, state: Any, view_state: Any, seat: int | None) -> dict[str, Any]:
    info = _info(game)
    names = _seat_names(game, info)
    to_move = _to_move(game, view_state)
    board = _board(game, view_state, info)
    try:
        scores = _numbers(game.scores(view_state))
    except Exception:  # noqa: BLE001 - a score that needs what the view hides: not shown
        scores = None
    phase = board.get("phase") if isinstance(board, dict) and isinstance(board.get("phase"), str) else None
    view: dict[str, Any] = {
        "format": VIEW_FORMAT,
        "game": game.name,
        "title": info.title if info is not None else game.name,
        "options": _json_safe(game.options()),
        "seat": seat,
        "num_players": game.num_players,
        "players": [{"seat": s, "name": names[s], "agent": f"player_{s}"} for s in range(game.num_players)],
        "to_move": list(to_move),
        "your_turn": seat in to_move,
        "phase": phase,
        "board": board,
        "scores": scores,
        "legal_moves": [],
        "terminal": _over(game, state),
        "result": _result(game, state, info),
    }
    if seat is None:
        view["legal_moves"] = {
            str(s): [
                {"number": i, "notation": game.action_to_str(view_state, a), "action": a}
                for i, a in enumerate(actions, 1)
            ]
            for s, actions in to_move.items()
        }
    elif seat in to_move:
        view["legal_moves"] = [
            {"number": i, "notation": text, "action": a}
            for i, (a, text) in enumerate(_moves(game, view_state, seat, to_move), 1)
        ]
    return view


def seat_view(game: Game, state: Any, seat: int) -> dict[str, Any]:
    """What seat ``seat`` may know of ``state``, JSON-able (``json.dumps`` takes it as it is).

    Fields: ``format``; ``game`` (id), ``title``, ``options``; ``seat``, ``num_players``, ``players`` (each seat's
    ``seat``, ``name`` and ``agent``); ``to_move`` (the seats that must choose now: the player to move, or in a
    simultaneous phase every seat yet to choose; empty once over), ``your_turn``; ``phase`` (the board's phase name,
    or None); ``board`` (the game's board JSON of the seat's information state: own hand, public counts, ...;
    ``render.board_data``); ``scores`` (so far, as the rulebook counts them); ``legal_moves`` (when it is this
    seat's turn: ``{"number", "notation", "action"}`` each, numbered from 1; else empty); ``terminal`` and
    ``result`` (None while live; then ``returns``, ``scores``, ``winners``, ``truncated``, ``note``).
    """
    seat = _check_seat(game, seat)
    return _view(game, state, game.information_state(state, seat), seat)


def spectator_view(game: Game, state: Any) -> dict[str, Any]:
    """:func:`seat_view`'s fields for the spectator (``seat`` None): **everything, hidden information included**
    (every hand, every face-down card), and ``legal_moves`` as a dict: each seat to move (as a string) -> its
    moves. For replays, referees and the OpenSpiel bridge's ``to_struct``; never for a player."""
    return _view(game, state, game.clone(state), None)


def _moves(
    game: Game, view_state: Any, seat: int, to_move: dict[int, list[int]] | None = None
) -> list[tuple[int, str]]:
    """``seat``'s legal moves with their notation (``to_move``: :func:`_to_move` of ``view_state``, if known)."""
    actions = (_to_move(game, view_state) if to_move is None else to_move).get(seat, [])
    return [(a, game.action_to_str(view_state, a)) for a in actions]


def legal_moves(game: Game, state: Any, seat: int) -> list[tuple[int, str]]:
    """``seat``'s legal moves now as ``(action id, notation)``, ascending by action id (empty when it is not the
    seat's turn); a move's number in :func:`seat_view` and :func:`seat_text` is its 1-based place here."""
    seat = _check_seat(game, seat)
    return _moves(game, game.information_state(state, seat), seat)


# ----- the prompt --------------------------------------------------------------------------------------------------
def _rules_summary(game: Game, info: registry.GameInfo | None) -> str:
    if info is None:
        return ""
    return (info.rules_summary or info.summary).strip()


def seat_text(game: Game, state: Any, seat: int) -> str:
    """:func:`seat_view` as prompt text: who you are, a short rules summary, the position as the seat sees it
    (``game.render_for(state, seat)``), the scores, and, when it is the seat's turn, its numbered legal moves in the
    game's notation and how to answer (:func:`parse_reply` reads the answer)."""
    seat = _check_seat(game, seat)
    view = seat_view(game, state, seat)
    names = [p["name"] for p in view["players"]]
    title = view["title"]
    options = ", ".join(f"{k}={json.dumps(v)}" for k, v in view["options"].items()) or "none"
    lines = [
        f"You are playing {title} as {names[seat]} (seat {seat}, player_{seat}) in a {game.num_players}-player game "
        f"(options: {options}).",
    ]
    summary = _rules_summary(game, _info(game))
    if summary:
        lines += ["", "Rules in brief:", summary]
    picture = str(game.render_for(state, seat, "ansi")).rstrip("\n")
    lines += ["", "The position as you see it:", picture]
    if view["scores"] is not None:
        scores = ", ".join(f"{names[s]} {_fmt(v)}" for s, v in enumerate(view["scores"]))
        lines += ["", f"Scores so far: {scores}."]
    lines.append("")
    if view["terminal"]:
        result = view["result"]
        winners = ", ".join(names[s] for s in result["winners"]) or "nobody (a draw)"
        returns = ", ".join(f"{names[s]} {_fmt(r)}" for s, r in enumerate(result["returns"]))
        lines.append(f"The game is over. Winner: {winners}. Results: {returns}.")
        if result["note"]:
            lines.append(str(result["note"]))
        return "\n".join(lines) + "\n"
    if not view["your_turn"]:
        waiting = ", ".join(f"{names[s]} (seat {s})" for s in view["to_move"])
        lines.append(f"It is not your turn: waiting for {waiting}.")
        return "\n".join(lines) + "\n"
    moves = view["legal_moves"]
    others = [s for s in view["to_move"] if s != seat]
    if others:
        lines.append(
            "You choose at the same time as "
            + ", ".join(names[s] for s in others)
            + "; nobody sees another's choice until all are in."
        )
    lines.append(f"It is your turn. Your legal moves ({len(moves)}):")
    lines += [f"  {m['number']}. {m['notation']}" for m in moves]
    example = moves[0]
    lines += [
        "",
        "Answer with exactly one of these moves: its notation as written above (e.g. "
        f'"{example["notation"]}") or its number (e.g. "{example["number"]}"). You may think first; then give the '
        'move on the last line as "Answer: <move>".',
    ]
    return "\n".join(lines) + "\n"


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3g}"


# ----- the parser --------------------------------------------------------------------------------------------------
_NUMBER = re.compile(r"(?:(?:move|option|choice|number|no\.?|nr\.?)\s*)?(?:#\s*)?(\d{1,9})", re.I)
"""A move's number: ``3``, ``#3``, ``move 3``, ``option #3``. No two quantifiers can share a character (linear
time on any text)."""
_MARKERS = ("final answer", "answer", "final move", "move", "action", "choice")
"""Line prefixes (before a ``:``) that introduce the answer in a free-text reply; the last such line wins."""
_JSON_KEYS = ("move", "action", "answer", "choice")
_STRIP = " \t\r\n\"'`*_"
_TRAILING = ".,;:!?)]}"


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _clean(text: str) -> str:
    """An answer without surrounding whitespace, quotes, backticks, markdown emphasis, brackets and trailing
    punctuation."""
    text = text.strip(_STRIP)
    for _ in range(4):
        before = text
        if text[:1] in "([{<" and text[-1:] in ")]}>":
            text = text[1:-1].strip(_STRIP)
        text = text.rstrip(_TRAILING).strip(_STRIP)
        if text == before:
            break
    return text


def _shown(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


class _Moves:
    """The seat's legal moves and the ways to name them."""

    def __init__(self, game: Game, view_state: Any, seat: int):
        self.game, self.view_state, self.seat = game, view_state, seat
        self.moves = _moves(game, view_state, seat)
        self.actions = [a for a, _ in self.moves]
        self.by_text: dict[str, list[int]] = {}
        self.by_squashed: dict[str, list[int]] = {}
        for action, text in self.moves:
            self.by_text.setdefault(_normal(text), []).append(action)
            self.by_squashed.setdefault("".join(text.lower().split()), []).append(action)

    def listing(self) -> str:
        """What the seat may answer: the moves (the first three of a long list) and the answer's form."""
        n = len(self.moves)
        if n <= 6:
            listed = "the listed moves are " + "; ".join(f"{i} {t!r}" for i, (_, t) in enumerate(self.moves, 1))
        else:
            first = "; ".join(f"{i} {t!r}" for i, (_, t) in enumerate(self.moves[:3], 1))
            listed = f"the {n} listed moves are numbered 1 to {n} ({first}; ...)"
        return f'{listed}; answer with one of them alone, e.g. "Answer: {self.moves[0][1]}" or "Answer: 1"'

    def number(self, k: int) -> int:
        if 1 <= k <= len(self.moves):
            return self.actions[k - 1]
        raise ReplyError(
            f"move {k} is not one of the {len(self.moves)} listed (numbers 1 to {len(self.moves)}); {self.listing()}"
        )

    def notation(self, text: str) -> int | None:
        for table, key in ((self.by_text, _normal(text)), (self.by_squashed, "".join(text.lower().split()))):
            found = table.get(key)
            if found is not None:
                if len(found) > 1:
                    raise ReplyError(f"{_shown(text)} names {len(found)} moves; answer with the move's number")
                return found[0]
        return None

    def why_illegal(self, action: int) -> str:
        """The engine's reason why ``action`` is illegal, checked on a copy of the seat's own view."""
        if self.game.current_player(self.view_state) != self.seat:
            return "it is not one of your legal moves now"
        trial = self.game.clone(self.view_state)
        try:
            self.game.apply(trial, action, np.random.default_rng(0))
        except IllegalActionError as error:
            return str(error)
        except Exception:  # noqa: BLE001 - a view state holds placeholders: no reason to give
            pass
        return "it is not one of your legal moves here"

    def read_notation(self, text: str) -> int:
        """The action id that ``text`` names in the game's notation (legal or not): the codec's ``parse`` (every
        game's ``actions.py``), else ``Game.str_to_action``, whose error says what the notation looks like."""
        codec = getattr(self.game, "codec", None)
        parse = getattr(codec, "parse", None)
        action = parse(self.view_state, text) if callable(parse) else None
        if action is None:
            action = self.game.str_to_action(self.view_state, text)
        return int(action)

    def interpret(self, answer: str) -> int:
        """The one legal action ``answer`` names (notation or listed number), or ReplyError."""
        raw = answer.strip()
        cleaned = _clean(raw)
        for text in dict.fromkeys((raw, cleaned)):
            found = self.notation(text)
            if found is not None:
                return found
        if not cleaned:
            raise ReplyError(f"the answer is empty; {self.listing()}")
        if len(cleaned) > MAX_ANSWER_CHARS:
            raise ReplyError(
                f"the answer {_shown(cleaned)} is {len(cleaned)} characters, too long to be a move; put the move "
                'alone on the last line as "Answer: <move>"'
            )
        m = _NUMBER.fullmatch(cleaned)
        if m is not None:
            return self.number(int(m.group(1)))
        try:
            action = self.read_notation(cleaned)
        except IllegalActionError as error:
            said = str(error)
            if repr(cleaned) not in said and _shown(cleaned) not in said:
                said = f"{_shown(cleaned)} is not a move: {said}"
            raise ReplyError(f"{said}; {self.listing()}") from None
        except (ValueError, TypeError, KeyError, IndexError) as error:
            raise ReplyError(f"{_shown(cleaned)} is not a move ({error}); {self.listing()}") from None
        if action in self.actions:
            return action
        try:
            named = self.game.action_to_str(self.view_state, action)
        except (ValueError, IndexError, KeyError):
            named = cleaned
        raise ReplyError(f"that move is not legal now: {_shown(named)}: {self.why_illegal(action)}; {self.listing()}")


def _json_answer(text: str) -> Any:
    """The move of a JSON object reply (``{"move": ...}``, ``{"action": ...}``, ...), None if ``text`` is not one."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    for key in _JSON_KEYS:
        for k, v in data.items():
            if isinstance(k, str) and k.lower() == key:
                return v
    raise ReplyError('the JSON reply has no "move" field; send {"move": "<notation>"} or {"move": <number>}')


def _last_fence(text: str) -> tuple[int, str] | None:
    """Where the last fenced block (```...```) ends, and its inside without a language tag; None if there is none."""
    end = text.rfind("```")
    start = text.rfind("```", 0, end) if end > 0 else -1
    if start < 0:
        return None
    inner = text[start + 3 : end]
    first, newline, rest = inner.partition("\n")
    if newline and first.strip().isalnum():  # a language tag: ```json
        inner = rest
    return end, inner.strip()


def _marked(text: str) -> tuple[int, str] | None:
    """Where the last ``Answer:`` / ``Move:`` / ... line starts, and its answer (the rest of the line, or the next
    non-empty line when the rest is empty); None if no line has such a marker."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    for i in range(len(lines) - 1, -1, -1):
        head, colon, tail = lines[i].partition(":")
        if colon and head.strip(" \t*_#>-`").lower() in _MARKERS:
            if not tail.strip():
                tail = next((line for line in lines[i + 1 :] if line.strip()), "")
            return offsets[i], tail
    return None


def _candidate(reply: str) -> tuple[str, Any]:
    """Where a reply names its move: ``("json", value)`` or ``("text", answer)``. The whole reply if it is a JSON
    object; else the later of the last fenced block and the last marker line (``Answer: X``); else the last line."""
    stripped = reply.strip()
    found = _json_answer(stripped)
    if found is not None:
        return "json", found
    fence, marked = _last_fence(stripped), _marked(stripped)
    if fence is not None and (marked is None or fence[0] > marked[0]):
        inner = fence[1]
        found = _json_answer(inner)
        if found is not None:
            return "json", found
        inside = _marked(inner)
        if inside is not None:
            return "text", inside[1]
        lines = [line for line in inner.splitlines() if line.strip()]
        return "text", lines[-1] if lines else ""
    if marked is not None:
        return "text", marked[1]
    lines = [line for line in stripped.splitlines() if line.strip()]
    if not lines:
        return "text", ""
    found = _json_answer(lines[-1])
    if found is not None:
        return "json", found
    return "text", lines[-1]


def parse_reply(game: Game, state: Any, seat: int, reply: str) -> int:
    """The one legal action of seat ``seat`` that ``reply`` names, or :class:`ReplyError` saying why not.

    Accepted: a move's notation (any case; surrounding quotes, backticks and whitespace and trailing punctuation
    ignored), a move's number in the listed moves (``3``, ``#3``, ``move 3``), a JSON object ``{"move": ...}`` (or
    ``"action"``, ``"answer"``, ``"choice"``; a string is notation or a number, an integer is the listed number),
    and free text whose answer is the last ``Answer: X`` / ``Move: X`` line or the last fenced block, whichever comes
    later, else the last line. Never an action the seat may not make now: not its turn, not legal, not its own
    (hidden information). Replies over :data:`MAX_REPLY_CHARS` characters are refused unread.
    """
    seat = _check_seat(game, seat)
    if not isinstance(reply, str):
        raise ReplyError(f"a reply is text, not {type(reply).__name__}")
    if len(reply) > MAX_REPLY_CHARS:
        raise ReplyError(
            f"the reply is {len(reply)} characters, over the limit of {MAX_REPLY_CHARS}; answer briefly, the move "
            'on the last line as "Answer: <move>"'
        )
    view_state = game.information_state(state, seat)
    if _over(game, view_state):
        raise ReplyError("the game is over: no move can be made")
    moves = _Moves(game, view_state, seat)
    if not moves.moves:
        waiting = ", ".join(f"seat {s}" for s in _to_move(game, view_state))
        raise ReplyError(f"it is not your turn (seat {seat}): waiting for {waiting}")
    kind, value = _candidate(reply)
    if kind == "json":
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ReplyError(
                'the JSON "move" must be a move\'s notation (a string) or its listed number, not '
                f"{_shown(json.dumps(value))}"
            )
        if isinstance(value, int):
            return moves.number(value)
        return moves.interpret(value)
    return moves.interpret(value)
