"""The web app: a Starlette application over :mod:`training.play.web.sessions` (``python -m training serve`` runs it).

JSON API (every error is ``{"error": message}`` with a 4xx status, and changes nothing):

====================================  ================================================================================
``GET  /api/catalogue``               games, their option forms and the policies to choose from (baselines and the
                                      checkpoints found under ``checkpoints/`` and ``runs/``)
``POST /api/games``                   ``{"game", "options", "seats": ["human", "random", ...], "seed"?}`` -> a game
                                      and ``"tokens": {"K": token}``, one secret per human seat (a seed only
                                      without a human seat)
``GET  /api/games/{id}``              the game as the seat of the request's token sees it (``X-Seat-Token``
                                      header or ``?token=``; ``?seat=K`` must agree), or the spectator view of a
                                      game without a human seat
``POST /api/games/{id}/move``         ``{"seat": K, "action": id}`` or ``{"seat": K, "move": "notation"}``, with
                                      seat K's token
``POST /api/games/{id}/step``         the bot to move plays one move (watch mode and bot turns; a token, in a game
                                      with a human seat)
``GET  /api/games/{id}/record``       the finished game as a ``--record`` file (a token, in a game with a human)
``POST /api/games/{id}/close``        forget the game now (likewise); with other human seats in the game, only
                                      this seat leaves: a bot plays it from then on (``sessions.STAND_IN``)
``POST /api/replays``                 a record file's JSON (``--record`` / ``--save-games``) -> its games
``GET  /api/replays/{id}/{i}/{ply}``  game i of that file after ``ply`` moves (spectator view)
``POST /api/tournaments``             a tournament JSON (``evaluate --out``) -> its table and win-share matrix
====================================  ================================================================================

Every request must name one of the served hosts in its ``Host`` header (loopback names by default: a foreign
page reaching this server through DNS rebinding names its own), and a request that changes something (POST) is
refused when it comes from another origin (an ``Origin`` header other than this server's, or ``Sec-Fetch-Site:
cross-site``): a page elsewhere cannot drive the server.

Games and opened files are kept in memory until ``--ttl`` seconds (default 1800) after their last request,
finished or abandoned alike, at most 200 at a time and opened files at most 32 MiB together (the least recently used
of the creator holding the most go first: the address, then the page's tab named in :data:`TAB_HEADER`). Bodies
are bounded (:data:`MAX_BODY`, :data:`MAX_FILE_BODY`), and so are search budgets and the folders checkpoints load
from (:func:`training.play.web.sessions.check_spec`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import logging
import math
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

import envs
from envs.common.policies import Policy
from training.arena.players import baseline_names
from training.arena.records import RecordError, parse_records, record_to_json
from training.arena.tournament import TournamentResult
from training.loader import read_sidecar
from training.play.web.sessions import (
    HUMAN,
    PlaySession,
    ReplaySession,
    SessionStore,
    WebError,
    check_record,
    loadable,
    shown,
    warm_searches,
)
from training.play.web.views import view_for
from training.specs import PolicySpecError, check_play, declared_simulations

log = logging.getLogger("training.play.web")
STATIC = Path(__file__).parent / "static"
MAX_BOT_MOVES = 4
"""Bot moves (and policy loads) computed at once, across games; more wait their turn in a worker thread."""
TOKEN_HEADER = "x-seat-token"
"""The header that carries a human seat's token (``?token=`` also does, for links)."""
TAB_HEADER = "x-barnyard-tab"
"""The header in which the page names its tab: a random id each tab draws once and keeps (sessionStorage), sent
with every request. It is no secret and proves nothing: it only tells the store's eviction which items one tab
created, so that a tab creating many games drops its own (:meth:`SessionStore.fit`)."""
_TAB = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_BODY = 64 * 1024
"""Largest request body of a new game or a move, bytes."""
MAX_FILE_BODY = 8 * 2**20
"""Largest record file or tournament JSON opened, bytes (an ``evaluate --save-games`` file of several thousand
games)."""
MAX_OBJECTS = 1_000
"""JSON objects and arrays in a request body at most ..."""
MAX_FILE_OBJECTS = 100_000
"""... and in an opened file (a game record is two objects and four arrays)."""
MAX_ELEMENTS = 10_000
"""JSON values of every kind (numbers, strings, true/false/null, arrays, objects) and keys in a request body at
most ..."""
MAX_FILE_ELEMENTS = 1_000_000
"""... and in an opened file: about 12,000 Beasty Borders games or 2,500 ten-player Boaring games of a record file
(one value an action). Parsed, a value costs the server 30-60 bytes (a 1 MiB list of numbers or short strings
about 60 MB at the most), and one opened file is parsed at a time."""
LARGE_BODY = 256 * 1024
"""Bodies over this many bytes are parsed in a worker thread, one at a time."""
MAX_DIGITS = 30
"""Longest integer accepted in a request body (digits): a seed is at most 19, and a longer one would be a number
that no float holds."""
MAX_HEADER_BYTES = 16 * 1024
"""The longest request line and headers: uvicorn's ``h11_max_incomplete_event_size`` (``serve`` sets it: 400
beyond, for a head that arrives in pieces) and :class:`HeadLimit` (431 beyond, for one that arrives whole)."""
BODY_SECONDS = 30.0
"""A request body must arrive whole within this many seconds (408 after): a client sending a byte at a time does
not hold a connection open for ever. Headers are bounded the same way by :mod:`training.play.web.serve`."""
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        b"frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
"""Sent with every response: the page runs only its own scripts and styles, and no other site may frame it (a
framed page could be clicked through by a page on top)."""
MAX_DEPTH = 16
"""Deepest nesting of arrays and objects accepted in a request body."""
MAX_POLICIES = 64
"""Policies of a tournament JSON at most (its heat map has one row and one column each)."""


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""The host names served by default (``serve --host`` and ``--allow-host`` add others)."""


def host_name(header: str | None) -> str | None:
    """The host of a ``Host`` header value (``name``, ``name:port``, ``[v6]:port``), lower case; None if absent."""
    if not header:
        return None
    header = header.strip().lower()
    if header.startswith("["):
        name, _, rest = header[1:].partition("]")
        return name if rest in ("",) or rest.startswith(":") else None
    name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
    return name.rstrip(".")


class OriginGuard:
    """ASGI middleware: a ``Host`` other than the served ones gets 400; a POST from another origin gets 403."""

    SAFE = ("GET", "HEAD", "OPTIONS")

    def __init__(self, app: ASGIApp, hosts: list[str]):
        self.app = app
        self.hosts = {h.lower().strip("[]") for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            host = headers.get("host")
            refusal = None
            if host_name(host) not in self.hosts:
                refusal = JSONResponse(
                    {
                        "error": "unexpected Host header: this server answers only as "
                        + ", ".join(sorted(self.hosts))
                        + " (python -m training serve --allow-host NAME adds a name)"
                    },
                    status_code=400,
                )
            elif scope["method"] not in self.SAFE:
                origin = headers.get("origin")
                if (origin is not None and origin not in (f"http://{host}", f"https://{host}")) or headers.get(
                    "sec-fetch-site"
                ) == "cross-site":
                    refusal = JSONResponse(
                        {"error": "cross-origin request refused: only this server's own page may change its games"},
                        status_code=403,
                    )
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class HeadLimit:
    """ASGI middleware: 431 for a request whose line and headers are over :data:`MAX_HEADER_BYTES` (uvicorn's h11
    caps only a head that arrives in pieces: one that arrives in one read, up to 256 KiB, it parses whole and passes
    on)."""

    def __init__(self, app: ASGIApp, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            query = scope.get("query_string", b"")
            size = len(scope["method"]) + len(scope.get("raw_path") or scope["path"]) + len(query) + 14
            size += sum(len(name) + len(value) + 4 for name, value in scope["headers"])
            if size > self.limit:
                refusal = JSONResponse(
                    {"error": f"request headers over {self.limit // 1024} KiB"},
                    status_code=431,
                    headers={"Connection": "close"},
                )
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every HTTP response (pages, files, API answers, errors)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message = dict(
                    message,
                    headers=list(message.get("headers", [])) + [(k, v) for k, v in SECURITY_HEADERS if k not in names],
                )
            await send(message)

        await self.app(scope, receive, send_with_headers)


def checkpoint_folders(roots: list[Path], extra: list[Path] | None = None) -> list[Path]:
    """The folders checkpoints are listed from and may be loaded from: ``checkpoints/`` and ``runs/`` of each
    root, then each ``--checkpoint-dir``."""
    return [root / folder for root in roots for folder in ("checkpoints", "runs")] + list(extra or [])


def find_checkpoints(folders: list[Path]) -> dict[str, list[dict[str, Any]]]:
    """Checkpoints (``*.pt`` with a JSON sidecar naming the game) under each of ``folders``, by game:
    ``{"path", "options"}`` (and ``"play"``, how it declares it is played, where that is not the network alone),
    paths relative to the working folder where possible. Only what the server would load
    (:func:`training.play.web.sessions.loadable`, the checkpoint and its sidecar): a link that points out of the
    folders is not listed. The sidecar is read as the loader reads it (:func:`training.loader.read_sidecar`), and a
    declared play is offered only where it is within the caps the server then checks it against
    (:func:`training.specs.check_play`; ``mcts`` without N: its training run's budget too)."""
    found: dict[str, list[dict[str, Any]]] = {g: [] for g in envs.GAMES}
    seen: set[Path] = set()
    for base in folders:
        if not base.is_dir():
            continue
        for pt in sorted(base.rglob("*.pt")):
            if pt.resolve() in seen or not loadable(pt, folders):
                continue
            try:
                meta = read_sidecar(pt, folders)
                game, options = meta["game"], meta.get("options", {})
            except (ValueError, KeyError, TypeError):
                continue
            if isinstance(game, str) and game in found:
                seen.add(pt.resolve())
                try:
                    label = str(pt.relative_to(Path.cwd()))
                except ValueError:
                    label = str(pt)
                entry: dict[str, Any] = {"path": label, "options": options}
                play = meta.get("play", "network")
                if play != "network" and declared_play_ok(play, meta):
                    entry["play"] = play  # the page offers agent:PATH, the checkpoint as it declares it is played
                found[game].append(entry)
    return found


def declared_play_ok(play: Any, meta: dict[str, Any]) -> bool:
    """Whether a sidecar's declared ``play`` is one the server plays: kind and arguments within their caps, and for
    ``mcts`` without N the training run's budget too (the catalogue offered ``guided:999999999:999999999``, which
    the server then refused)."""
    try:
        check_play(play)
        if play == "mcts":
            declared_simulations(meta)
    except PolicySpecError:
        return False
    return True


async def read_body(request: Request, limit: int, seconds: float = BODY_SECONDS) -> bytes:
    """The request body, refused (413) as soon as it is over ``limit`` bytes: never held whole beyond that; and
    refused (408) when it has not arrived whole within ``seconds``."""
    size = request.headers.get("content-length")
    too_big = WebError(
        413, f"request body over {limit // 1024} KiB" if limit < 2**20 else f"request body over {limit // 2**20} MiB"
    )
    if size is not None and size.isdigit() and (len(size) > 12 or int(size) > limit):
        raise too_big
    chunks, total = [], 0
    with anyio.move_on_after(seconds) as deadline:
        async for chunk in request.stream():
            total += len(chunk)
            if total > limit:
                raise too_big
            chunks.append(chunk)
    if deadline.cancelled_caught:
        raise WebError(408, f"the request body did not arrive within {seconds:.0f} s")
    return b"".join(chunks)


_SLICE = 2**20
"""Bytes a body is counted in at a time (numpy's temporary arrays are a few times this)."""


def json_counts(raw: bytes) -> tuple[int, int]:
    """``(containers, elements)`` of the JSON text ``raw``, counted before it is parsed: its arrays and objects (its
    ``[`` and ``{`` outside strings), and its values of every kind and keys (each ``,`` and ``:`` outside strings
    separates one more). An upper bound of what the parser builds from it, or from the part it reads of a text that
    is not JSON: ``[0,0,...]`` builds a number for every two bytes, ``[[],...]`` a list for every three. numpy's
    loops over 1 MiB slices, most of it without holding the interpreter (about 10 ms for 8 MiB)."""
    if b"\\" in raw:  # an escaped quote ends no string: blank out the escape pairs first, left to right as JSON
        raw = raw.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    data = np.frombuffer(raw, np.uint8)
    containers = separators = 0
    inside = 0  # 1 while within a string
    for start in range(0, len(data), _SLICE):
        part = data[start : start + _SLICE]
        quotes = np.cumsum(part == ord('"'), dtype=np.uint8)  # parity of the quotes so far (mod 256 keeps it)
        outside = ((quotes + inside) & 1) == 0
        containers += int(np.count_nonzero(((part == ord("[")) | (part == ord("{"))) & outside))
        separators += int(np.count_nonzero(((part == ord(",")) | (part == ord(":"))) & outside))
        inside = (inside + int(quotes[-1])) & 1
    return containers, containers + separators + 1


def parse_json(raw: bytes, objects: int = MAX_OBJECTS, elements: int = MAX_ELEMENTS) -> Any:
    """``raw`` as JSON with at most ``objects`` objects and arrays together and at most ``elements`` values and
    keys of every kind (both counted before parsing: :func:`json_counts`), integers of at most :data:`MAX_DIGITS`
    digits, numbers within a float's range and :data:`MAX_DEPTH` levels; NaN and Infinity are read as null. Every
    string, keys too, must be Unicode text (a lone surrogate such as ``"\\ud800"`` is not): whatever the server
    echoes back in an answer or a message can then be written as JSON again. :class:`WebError` 400 otherwise, with
    a message that names what is wrong and where."""
    containers, values = json_counts(raw)
    if containers > objects:
        raise WebError(400, f"the request body has more than {objects} JSON objects and arrays")
    if values > elements:
        raise WebError(
            400,
            f"the request body has more than {elements} JSON values (numbers, strings, arrays, objects and keys "
            "together)",
        )

    def integer(text: str) -> int:
        if len(text.lstrip("-")) > MAX_DIGITS:
            raise WebError(400, f"the request body has an integer of more than {MAX_DIGITS} digits")
        return int(text)

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise WebError(400, f"the request body has a number beyond a float's range ({text[:20]})")
        return value

    try:
        data = json.loads(raw, parse_int=integer, parse_float=number, parse_constant=lambda name: None)
    except RecursionError:
        raise WebError(400, f"the request body is nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError:
        raise WebError(400, "the request body is not JSON: it is not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise WebError(
            400, f"the request body is not JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None
    except ValueError:
        raise WebError(400, "the request body is not JSON that this server reads") from None
    if isinstance(data, str):
        _check_text(data)
    todo = [(data, 1)] if isinstance(data, (list, dict)) else []
    while todo:  # only the containers are held here: a value costs no more than the parse made it cost
        value, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise WebError(400, f"the request body is nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            for key in value:
                _check_text(key)
            value = value.values()
        for item in value:
            if isinstance(item, (list, dict)):
                todo.append((item, depth + 1))
            elif isinstance(item, str):
                _check_text(item)
    return data


def _check_text(text: str) -> None:
    """400 for a string that is not Unicode text (a lone surrogate, which no UTF-8 answer can carry)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise WebError(
                400, "the request body has a string that is not Unicode text (a lone surrogate such as \\ud800)"
            ) from None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_tournament(data: Any) -> None:
    """Refuse (400, a plain message) a tournament JSON the page cannot draw: the fields ``TournamentResult`` reads,
    of the right types, at most :data:`MAX_POLICIES` policies and one pair row per pair of them."""

    def fail(what: str) -> None:
        raise WebError(400, f"this is not a tournament JSON (python -m training evaluate --out DIR writes one): {what}")

    if not isinstance(data, dict):
        fail("it is not a JSON object")
    policies = data.get("policies")
    if not (
        isinstance(policies, list)
        and 1 <= len(policies) <= MAX_POLICIES
        and all(isinstance(p, str) and 0 < len(p) <= 300 for p in policies)
    ):
        fail(f"'policies' must be a list of 1 to {MAX_POLICIES} names")
    if len(set(policies)) != len(policies):
        fail("a policy is listed twice")
    if not isinstance(data.get("game"), str) or not isinstance(data.get("options"), dict):
        fail("'game' must be a name and 'options' an object")
    if not _count(data.get("games_per_pair")) or not _count(data.get("seed")):
        fail("'games_per_pair' and 'seed' must be whole numbers")
    for key in ("elo", "elo_se"):
        values = data.get(key)
        if not (isinstance(values, list) and len(values) == len(policies) and all(map(_number, values))):
            fail(f"'{key}' must be a list of numbers, one per policy")
    seconds = data.get("seconds_per_move")
    if not isinstance(seconds, dict) or not all(_number(v) for v in seconds.values()):
        fail("'seconds_per_move' must map policies to numbers")
    pairs = data.get("pairs")
    if not isinstance(pairs, list) or len(pairs) > len(policies) ** 2:
        fail("'pairs' must be a list with one row per pair of policies")
    names = set(policies)
    for i, pair in enumerate(pairs):
        if not (
            isinstance(pair, dict)
            and isinstance(pair.get("a"), str)
            and isinstance(pair.get("b"), str)
            and pair["a"] in names
            and pair["b"] in names
        ):
            fail(f"pair {i} must name two of the policies as 'a' and 'b'")
        for key in ("games", "wins", "draws", "losses"):
            if not _count(pair.get(key)):
                fail(f"pair {i}: '{key}' must be a whole number")
        for key in ("win_share", "parity", "mean_margin"):
            if not _number(pair.get(key)):
                fail(f"pair {i}: '{key}' must be a number")
        interval = pair.get("interval")
        if not (isinstance(interval, list) and len(interval) == 2 and all(map(_number, interval))):
            fail(f"pair {i}: 'interval' must be two numbers")
        if set(pair) - {"a", "b", "games", "wins", "draws", "losses", "win_share", "interval", "parity", "mean_margin"}:
            fail(f"pair {i} has fields a tournament pair does not have")


def tournament_json(data: Any) -> dict[str, Any]:
    """A saved tournament as the page draws it: the pair rows, the ratings and the win-share matrix."""
    check_tournament(data)
    try:
        result = TournamentResult.from_json(data)
    except ValueError:
        raise WebError(
            400,
            "this is not a tournament JSON (python -m training evaluate --out DIR writes one): "
            "its pairs or ratings do not match its policies",
        ) from None
    matrix = [[None if math.isnan(v) else float(v) for v in row] for row in result.win_shares()]
    # result.to_json() without dataclasses.asdict's deep copy (two thirds of the time of a 64-policy tournament)
    body = {f.name: getattr(result, f.name) for f in dataclasses.fields(result) if f.name != "records"}
    body["pairs"] = [dict(vars(p), interval=list(p.interval)) for p in result.pairs]
    body.update(kind="tournament", matrix=matrix)
    return body


def freeze_objects() -> None:
    """Collect, then move every object the process holds out of the garbage collector's reach (``gc.freeze``):
    a started server's modules, app and tables live as long as it does. A full collection, which the many objects
    of a large request's parsing trigger every request or two, holds the interpreter while it walks every object
    tracked: 35-45 ms for a started server's 80,000 on a busy 2-core machine, the longest pause other requests
    waited for while a tournament was checked in a worker thread."""
    gc.collect()
    gc.freeze()


ROWS_AT_ONCE = 256
"""Pair rows of a tournament written out by one ``json.dumps`` call (about 2 ms): the encoder holds the interpreter
for the whole of a call, 35 ms or more for a 64-policy tournament's 4,096 rows in one."""


def tournament_response(data: Any) -> Response:
    """:func:`tournament_json` written out as the response (as ``JSONResponse`` writes it), its pair rows
    :data:`ROWS_AT_ONCE` at a time. The app calls it in a worker thread: the checks and the writing take the
    interpreter for a while for a large tournament, and between the calls the event loop gets it back."""
    body = tournament_json(data)
    pairs = body.pop("pairs")

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))

    rows = [dumps(pairs[i : i + ROWS_AT_ONCE])[1:-1] for i in range(0, len(pairs), ROWS_AT_ONCE)]
    text = dumps(body)[:-1] + ',"pairs":[' + ",".join(rows) + "]}"
    return Response(text.encode("utf-8"), media_type="application/json")


def create_app(
    store: SessionStore | None = None,
    checkpoint_roots: list[Path] | None = None,
    extra_policies: dict[str, Callable[[str, dict[str, Any], int], Policy]] | None = None,
    allowed_hosts: list[str] | None = None,
    checkpoint_dirs: list[Path] | None = None,
    warm: bool = False,
    body_seconds: float = BODY_SECONDS,
    freeze: bool = False,
) -> Starlette:
    """The application. ``extra_policies``: seat specs served by factories ``(game, options, seed) -> Policy``
    besides the usual ones (tests use it for a policy that fails). ``allowed_hosts``: the host names a request may
    name (default :data:`LOOPBACK_HOSTS`). Checkpoints are listed and loaded only from :func:`checkpoint_folders`
    (``checkpoints/`` and ``runs/`` of each of ``checkpoint_roots``, default the working folder, and each of
    ``checkpoint_dirs``). ``warm``: compile every game's search at start-up, in a background thread
    (:func:`training.play.web.sessions.warm_searches`; the catalogue says when it is done). ``body_seconds``: the
    time a request body has to arrive whole (:data:`BODY_SECONDS`). ``freeze``: :func:`freeze_objects` once started
    (and once the searches are compiled): ``serve`` does, tests do not (it would freeze the test process's)."""
    store = SessionStore() if store is None else store
    roots = checkpoint_roots if checkpoint_roots is not None else [Path.cwd()]
    folders = checkpoint_folders(roots, checkpoint_dirs)
    bot_moves = anyio.CapacityLimiter(MAX_BOT_MOVES)
    large_parses = anyio.CapacityLimiter(1)
    replays = anyio.CapacityLimiter(1)
    tournaments = anyio.CapacityLimiter(1)
    extra = extra_policies or {}
    searches_ready = threading.Event()
    if not warm:
        searches_ready.set()

    def warm_up() -> None:
        try:
            took = warm_searches()
            log.info("searches compiled: %s", ", ".join(f"{g} {t:.1f} s" for g, t in took.items()))
        except Exception:  # noqa: BLE001 - a failed warm-up only means the first search move compiles instead
            log.exception("compiling the searches at start-up failed")
        finally:
            if freeze:
                freeze_objects()  # the compiled searches' objects
            searches_ready.set()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if freeze:
            for name in envs.GAMES:  # the modules the first catalogue would import, frozen with the rest
                view_for(name)
            freeze_objects()
        if warm:
            threading.Thread(target=warm_up, name="warm-searches", daemon=True).start()
        yield

    def client_of(request: Request) -> tuple[str, str]:
        """Who sent a request, for the store's fairness: its address, and the page's tab there
        (:data:`TAB_HEADER`; "" for a client that names none)."""
        tab = request.headers.get(TAB_HEADER, "")
        return (request.client.host if request.client else ""), (tab if _TAB.fullmatch(tab) else "")

    def api(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                result = await handler(request)
                return result if isinstance(result, Response) else JSONResponse(result)
            except WebError as err:
                # a body left unread (too slow, too big): close the connection rather than read the rest
                headers = {"Connection": "close"} if err.status in (408, 413) else None
                return JSONResponse({"error": err.message}, status_code=err.status, headers=headers)
            except Exception as exc:  # noqa: BLE001 - a bug: logged, and answered like any other response (with
                # the security headers, the connection kept), never with Python's internals
                return await server_error(request, exc)

        return endpoint

    async def body_json(
        request: Request, limit: int = MAX_BODY, objects: int = MAX_OBJECTS, elements: int = MAX_ELEMENTS
    ) -> Any:
        """The request's JSON body, read at most ``limit`` bytes far (413 beyond), parsed with at most ``objects``
        objects and arrays, ``elements`` values and :data:`MAX_DEPTH` levels (400 beyond); over
        :data:`LARGE_BODY`, in a worker thread and one at a time (four 8 MiB bodies at once cost what one does)."""
        return await parsed(await read_body(request, limit, body_seconds), objects, elements)

    async def parsed(raw: bytes, objects: int, elements: int) -> Any:
        if len(raw) > LARGE_BODY:
            return await anyio.to_thread.run_sync(parse_json, raw, objects, elements, limiter=large_parses)
        return parse_json(raw, objects, elements)

    def game(request: Request) -> PlaySession:
        return store.get(request.path_params["game_id"], PlaySession)

    def viewer(request: Request, session: PlaySession, seat: Any = None) -> int | None:
        """The seat this request may see (its token's), checked before anything changes."""
        token = request.headers.get(TOKEN_HEADER) or request.query_params.get("token")
        return session.authorize(request.query_params.get("seat") if seat is None else seat, token)

    async def rules(request: Request) -> Response:
        name = request.path_params["game"]
        if name not in envs.GAMES:
            raise WebError(404, f"no game {shown(name)}; the games are {', '.join(envs.GAMES)}")
        path = envs.game_info(name).folder / "RULES.md"
        return FileResponse(path, media_type="text/plain; charset=utf-8")

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    left_out: set[str] = set()
    """Registered games whose modules fail to load: left out of the catalogue (logged once), the others listed."""

    async def catalogue(request: Request) -> Any:
        checkpoints = await run_in_threadpool(find_checkpoints, folders)
        games = []
        for name in envs.GAMES:
            try:
                view = view_for(name)
                policies = baseline_names(name)
            except Exception:  # noqa: BLE001 - one broken game must not take the page down for the others
                if name not in left_out:
                    left_out.add(name)
                    log.exception("game %r is left out of the catalogue: its modules do not load", name)
                continue
            games.append(
                {
                    "game": name,
                    "title": view.title,
                    "drawing": view.drawing,
                    "options": view.options_form,
                    "hidden_information": view.hidden_information,
                    "policies": policies + sorted(extra),
                    "checkpoints": checkpoints[name],
                    "players": _player_counts(view.options_form),
                }
            )
        return {"games": games, "human": HUMAN, "ttl": store.ttl, "search_ready": searches_ready.is_set()}

    async def new_game(request: Request) -> Any:
        body = await body_json(request)
        if not isinstance(body, dict):
            raise WebError(400, "send a JSON object with game, options and seats")
        name, options, seats = body.get("game"), body.get("options", {}), body.get("seats")
        policies: dict[int, Policy] = {}
        if isinstance(seats, list) and isinstance(name, str) and isinstance(options, dict):
            for i, spec in enumerate(seats):
                if isinstance(spec, str) and spec in extra:
                    policies[i] = extra[spec](name, options, i)
        session = await anyio.to_thread.run_sync(
            lambda: PlaySession(name, options, seats, body.get("seed"), policies, checkpoint_folders=folders),
            limiter=bot_moves,
        )
        store.add(session, *client_of(request))
        body = session.payload(session.default_viewer())
        body["tokens"] = {str(seat): token for seat, token in session.tokens.items()}
        return JSONResponse(body, status_code=201)

    async def show_game(request: Request) -> Any:
        session = game(request)
        return session.payload(viewer(request, session))

    async def move(request: Request) -> Any:
        session = game(request)
        body = await body_json(request)
        if not isinstance(body, dict) or ("action" in body) == ("move" in body):
            raise WebError(400, 'send {"seat": K, "action": ID} or {"seat": K, "move": "notation"}')
        seat = body.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise WebError(400, f"give the moving seat as an integer, got {shown(seat)}")
        seat = viewer(request, session, seat)
        await run_in_threadpool(session.move, seat, body.get("action"), body.get("move"))
        return session.payload(seat)

    async def step(request: Request) -> Any:
        session = game(request)
        seat = viewer(request, session)  # before the step: a refused request plays nothing
        await anyio.to_thread.run_sync(session.step, limiter=bot_moves)  # off the event loop; one at a time
        # per game (session.step refuses a second with 409), at most MAX_BOT_MOVES games' moves at once
        return session.payload(seat)

    async def record(request: Request) -> Any:
        session = game(request)
        viewer(request, session)
        data = [record_to_json(session.record())]
        return JSONResponse(
            data, headers={"Content-Disposition": f'attachment; filename="{session.game_name}-{session.seed}.json"'}
        )

    async def close(request: Request) -> Any:
        session = game(request)
        seat = viewer(request, session)
        if seat is None or session.leave(seat):  # a watch game, or its last human seat
            store.remove(session.id)
            return {"closed": True}
        return {"closed": False, "left": seat, "played_by": session.seat_label(seat)}

    async def open_replay(request: Request) -> Any:
        raw = await read_body(request, MAX_FILE_BODY, body_seconds)
        body = await parsed(raw, MAX_FILE_OBJECTS, MAX_FILE_ELEMENTS)
        name = request.query_params.get("name", "")[:200]
        try:
            records = parse_records(body, "the file")
        except RecordError as err:
            raise WebError(400, str(err)) from None
        players: dict[tuple[str, str], int] = {}
        for i, record in enumerate(records):
            check_record(i, record, players)
        session = ReplaySession(records, name, weight=len(raw))
        store.add(session, *client_of(request))
        return JSONResponse(session.summary(), status_code=201)

    async def show_replay(request: Request) -> Any:
        session = store.get(request.path_params["replay_id"], ReplaySession)
        p = request.path_params
        body = None
        if session.loaded(p["index"]):
            body = await run_in_threadpool(session.payload, p["index"], p["ply"], False)
        if body is None:  # replaying a game holds the interpreter: one at a time, so other requests get it
            body = await anyio.to_thread.run_sync(session.payload, p["index"], p["ply"], limiter=replays)
            store.fit(session.id)  # the positions it replayed count against the byte budget
        return body

    def parsed_tournament_response(raw: bytes) -> Response:
        data = parse_json(raw, MAX_FILE_OBJECTS, MAX_FILE_ELEMENTS)
        try:
            return tournament_response(data)
        except WebError as err:
            refused = err
        # a refusal's traceback would keep the parsed body alive (its frames hold it) until the answer is sent, while
        # the next body is parsed: four large bodies at once would then be held at once
        del data
        raise refused.with_traceback(None)

    async def tournament(request: Request) -> Any:
        raw = await read_body(request, MAX_FILE_BODY, body_seconds)
        # parsing, checking, drawing and writing out a tournament holds the interpreter (64 policies: 0.2-0.5 s):
        # in a worker thread and one at a time, as replays, so that the event loop answers other requests meanwhile;
        # the parse is inside that turn too, so that bodies posted together are never parsed and held together
        return await anyio.to_thread.run_sync(parsed_tournament_response, raw, limiter=tournaments)

    async def not_found(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            path = request.url.path if len(request.url.path) <= 80 else request.url.path[:79] + "…"
            return JSONResponse({"error": f"{exc.detail}: {request.method} {path}"}, status_code=exc.status_code)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    async def server_error(request: Request, exc: Exception) -> Response:
        log.error("internal error on %s %s", request.method, request.url.path[:200], exc_info=exc)
        return JSONResponse({"error": "internal error (the server's log has the details)"}, status_code=500)

    routes = [
        Route("/", index),
        Route("/api/catalogue", api(catalogue)),
        Route("/rules/{game}", api(rules)),
        Route("/api/games", api(new_game), methods=["POST"]),
        Route("/api/games/{game_id}", api(show_game)),
        Route("/api/games/{game_id}/move", api(move), methods=["POST"]),
        Route("/api/games/{game_id}/step", api(step), methods=["POST"]),
        Route("/api/games/{game_id}/record", api(record)),
        Route("/api/games/{game_id}/close", api(close), methods=["POST"]),
        Route("/api/replays", api(open_replay), methods=["POST"]),
        Route("/api/replays/{replay_id}/{index}/{ply}", api(show_replay)),
        Route("/api/tournaments", api(tournament), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: not_found, Exception: server_error},
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(HeadLimit, limit=MAX_HEADER_BYTES),
            Middleware(OriginGuard, hosts=list(allowed_hosts or LOOPBACK_HOSTS)),
        ],
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.searches_ready = searches_ready
    return app


def _player_counts(form: list[dict[str, Any]]) -> list[int] | None:
    for field in form:
        if field["name"] == "num_players":
            return list(field["choices"])
    return None
