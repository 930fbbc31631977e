"""The web app: a Starlette application over :mod:`training.web.sessions` (``python -m training serve`` runs it).

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
``POST /api/games/{id}/close``        forget the game now (likewise)
``POST /api/replays``                 a record file's JSON (``--record`` / ``--save-games``) -> its games
``GET  /api/replays/{id}/{i}/{ply}``  game i of that file after ``ply`` moves (spectator view)
``POST /api/tournaments``             a tournament JSON (``evaluate --out``) -> its table and win-share matrix
====================================  ================================================================================

Every request must name one of the served hosts in its ``Host`` header (loopback names by default: a foreign
page reaching this server through DNS rebinding names its own), and a request that changes something (POST) is
refused when it comes from another origin (an ``Origin`` header other than this server's, or ``Sec-Fetch-Site:
cross-site``): a page elsewhere cannot drive the server.

Games and opened files are kept in memory until ``--ttl`` seconds (default 1800) after their last request,
finished or abandoned alike, and at most 200 at a time (the least recently used go first).
"""

from __future__ import annotations

import json
import math

import anyio
import anyio.to_thread
from pathlib import Path
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

import envs
from envs.common.policies import Policy
from training.evaluate import TournamentResult, baseline_names
from training.records import RecordError, parse_records, record_to_json
from training.web.sessions import HUMAN, PlaySession, ReplaySession, SessionStore, WebError, shown
from training.web.views import VIEWS

STATIC = Path(__file__).parent / "static"
MAX_BOT_MOVES = 4
"""Bot moves (and policy loads) computed at once, across games; more wait their turn in a worker thread."""
TOKEN_HEADER = "x-seat-token"
"""The header that carries a human seat's token (``?token=`` also does, for links)."""
MAX_BODY = 64 * 1024 * 1024
"""Largest request body accepted (a record file of many games), bytes."""


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
                refusal = JSONResponse({"error": "unexpected Host header: this server answers only as "
                                        + ", ".join(sorted(self.hosts))
                                        + " (python -m training serve --allow-host NAME adds a name)"}, status_code=400)
            elif scope["method"] not in self.SAFE:
                origin = headers.get("origin")
                if (origin is not None and origin not in (f"http://{host}", f"https://{host}")) or \
                        headers.get("sec-fetch-site") == "cross-site":
                    refusal = JSONResponse({"error": "cross-origin request refused: only this server's own page may "
                                                     "change its games"}, status_code=403)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


def checkpoint_folders(roots: list[Path], extra: list[Path] | None = None) -> list[Path]:
    """The folders checkpoints are listed from and may be loaded from: ``checkpoints/`` and ``runs/`` of each
    root, then each ``--checkpoint-dir``."""
    return [root / folder for root in roots for folder in ("checkpoints", "runs")] + list(extra or [])


def find_checkpoints(folders: list[Path]) -> dict[str, list[dict[str, Any]]]:
    """Checkpoints (``*.pt`` with a JSON sidecar naming the game) under each of ``folders``, by game:
    ``{"path", "options"}``, paths relative to the working folder where possible."""
    found: dict[str, list[dict[str, Any]]] = {g: [] for g in envs.GAMES}
    seen: set[Path] = set()
    for base in folders:
        if not base.is_dir():
            continue
        for pt in sorted(base.rglob("*.pt")):
            sidecar = pt.with_suffix(".json")
            if pt.resolve() in seen or not sidecar.is_file():
                continue
            try:
                meta = json.loads(sidecar.read_text())
                game, options = meta["game"], meta.get("options", {})
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if game in found:
                seen.add(pt.resolve())
                try:
                    label = str(pt.relative_to(Path.cwd()))
                except ValueError:
                    label = str(pt)
                found[game].append({"path": label, "options": options})
    return found


def tournament_json(data: Any) -> dict[str, Any]:
    """A saved tournament as the page draws it: the pair rows, the ratings and the win-share matrix."""
    try:
        result = TournamentResult.from_json(data)
    except ValueError as err:
        raise WebError(400, f"this is not a tournament JSON (python -m training evaluate --out DIR writes one): {err}")
    matrix = [[None if math.isnan(v) else float(v) for v in row] for row in result.win_shares()]
    body = result.to_json()
    body.update(kind="tournament", matrix=matrix)
    return body


def create_app(store: SessionStore | None = None, checkpoint_roots: list[Path] | None = None,
               extra_policies: dict[str, Callable[[str, dict[str, Any], int], Policy]] | None = None,
               allowed_hosts: list[str] | None = None, checkpoint_dirs: list[Path] | None = None) -> Starlette:
    """The application. ``extra_policies``: seat specs served by factories ``(game, options, seed) -> Policy``
    besides the usual ones (tests use it for a policy that fails). ``allowed_hosts``: the host names a request may
    name (default :data:`LOOPBACK_HOSTS`). Checkpoints are listed and loaded only from :func:`checkpoint_folders`
    (``checkpoints/`` and ``runs/`` of each of ``checkpoint_roots``, default the working folder, and each of
    ``checkpoint_dirs``)."""
    store = SessionStore() if store is None else store
    roots = checkpoint_roots if checkpoint_roots is not None else [Path.cwd()]
    folders = checkpoint_folders(roots, checkpoint_dirs)
    bot_moves = anyio.CapacityLimiter(MAX_BOT_MOVES)
    extra = extra_policies or {}

    def api(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                result = await handler(request)
            except WebError as err:
                return JSONResponse({"error": err.message}, status_code=err.status)
            return result if isinstance(result, Response) else JSONResponse(result)
        return endpoint

    async def body_json(request: Request) -> Any:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > MAX_BODY:
            raise WebError(413, f"request body over {MAX_BODY // 2**20} MiB")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise WebError(413, f"request body over {MAX_BODY // 2**20} MiB")
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError) as err:
            raise WebError(400, f"the request body is not JSON: {err}") from None

    def game(request: Request) -> PlaySession:
        return store.get(request.path_params["game_id"], PlaySession)

    def viewer(request: Request, session: PlaySession, seat: Any = None) -> int | None:
        """The seat this request may see (its token's), checked before anything changes."""
        token = request.headers.get(TOKEN_HEADER) or request.query_params.get("token")
        return session.authorize(request.query_params.get("seat") if seat is None else seat, token)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def catalogue(request: Request) -> Any:
        checkpoints = await run_in_threadpool(find_checkpoints, folders)
        games = []
        for name in envs.GAMES:
            view = VIEWS[name]
            games.append({"game": name, "title": view.title, "options": view.options_form,
                          "hidden_information": view.hidden_information,
                          "policies": baseline_names(name) + sorted(extra), "checkpoints": checkpoints[name],
                          "players": _player_counts(view.options_form)})
        return {"games": games, "human": HUMAN, "ttl": store.ttl}

    async def new_game(request: Request) -> Any:
        body = await body_json(request)
        if not isinstance(body, dict):
            raise WebError(400, "send a JSON object with game, options and seats")
        name, options, seats = body.get("game"), body.get("options", {}), body.get("seats")
        policies: dict[int, Policy] = {}
        if isinstance(seats, list) and isinstance(name, str) and isinstance(options, dict):
            for i, spec in enumerate(seats):
                if spec in extra:
                    policies[i] = extra[spec](name, options, i)
        session = await anyio.to_thread.run_sync(
            lambda: PlaySession(name, options, seats, body.get("seed"), policies, checkpoint_folders=folders),
            limiter=bot_moves)
        store.add(session)
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
        return JSONResponse(data, headers={
            "Content-Disposition": f'attachment; filename="{session.game_name}-{session.seed}.json"'})

    async def close(request: Request) -> Any:
        session = game(request)
        viewer(request, session)
        store.remove(session.id)
        return {"closed": True}

    async def open_replay(request: Request) -> Any:
        body = await body_json(request)
        name = request.query_params.get("name", "")
        try:
            records = parse_records(body, name or "the file")
        except RecordError as err:
            raise WebError(400, str(err)) from None
        session = ReplaySession(records, name)
        store.add(session)
        return JSONResponse(session.summary(), status_code=201)

    async def show_replay(request: Request) -> Any:
        session = store.get(request.path_params["replay_id"], ReplaySession)
        p = request.path_params
        return await run_in_threadpool(session.payload, p["index"], p["ply"])

    async def tournament(request: Request) -> Any:
        return tournament_json(await body_json(request))

    async def not_found(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": f"{exc.detail}: {request.method} {request.url.path}"},
                                status_code=exc.status_code)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    async def server_error(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500)

    routes = [
        Route("/", index),
        Route("/api/catalogue", api(catalogue)),
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
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found, Exception: server_error},
                    middleware=[Middleware(OriginGuard, hosts=list(allowed_hosts or LOOPBACK_HOSTS))])
    app.state.store = store
    return app


def _player_counts(form: list[dict[str, Any]]) -> list[int] | None:
    for field in form:
        if field["name"] == "num_players":
            return list(field["choices"])
    return None
