"""``barnyard mcp [--http [--host 127.0.0.1] [--port 8765] [--allow-remote]] [--ttl 1800] [--max-games 64]``: the
games as an MCP tool server (the official ``mcp`` SDK; the ``llm`` extra: ``pip install -e ".[llm]"``).

A client (Claude Desktop, an agent framework, the SDK's own ``ClientSession``) starts a game against policies and
plays its seats through tools; ``docs/llm.md`` ("MCP server") shows the client configuration and a session.

Tools: ``catalog`` (the games, their options and opponents), ``new_game`` (a game, its options, your seat or how many
MCP seats, the opponents' policy specs, a seed) -> the game id and each MCP seat's secret token; ``view`` (the seat's
view as JSON and as prompt text), ``legal_moves``, ``play_move`` (notation, listed number, JSON or free text, read by
``parse_reply``; the opponents then move), ``resign``, ``result``, and ``list_games`` (public facts only).

Transports: stdio (the default: the client starts ``barnyard mcp``) and streamable HTTP at
``http://127.0.0.1:PORT/mcp`` (``--http``); another address than loopback is refused unless ``--allow-remote``.

Bounds (as the web app's): at most ``--max-games`` live games, each forgotten ``--ttl`` seconds after its last call;
a request over 64 KiB refused unread (one JSON-RPC line on stdio, one body over HTTP); opponents' search budgets
and checkpoint folders as the web page's (:func:`training.play.web.sessions.check_spec`); engine work in worker
threads (opponents' thinking in at most 4 games at once), so a slow opponent stalls no other call. A refused call
changes nothing.

Secrets: each MCP seat acts and sees only with its own token (``secrets.token_urlsafe``); a seat is shown only its
own information state (:mod:`envs.common.seat_view`), and the seed only once the game is over.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

import numpy as np

from envs.common.game import Game
from training.cli_errors import command_errors, fail
from training.play.mcp_games import MCP, GameTable, Limits, Refusal, SeatGame
from training.play.mcp_games import catalog as game_catalog

T = TypeVar("T")
Format = Literal["json", "text", "both"]
DEFAULT_PORT = 8765
INSTRUCTIONS = (
    "Barnyard board and card games. Call catalog for the games and their options, new_game to start one (keep the "
    "game_id and your seat's token: every other call needs both), view or legal_moves to see your position, "
    'play_move to move (a move\'s notation, its number in the listed moves, or {"move": ...}); the opponents then '
    "move, and play_move's answer is your next position. result tells how a finished game ended."
)


def _missing_sdk(err: ImportError) -> None:
    fail(f'barnyard mcp needs the llm extra ({err}): pip install -e ".[llm]"')


def create_server(
    table: GameTable | None = None,
    limits: Limits | None = None,
    deal: Callable[[Game, np.random.Generator], Any] | None = None,
) -> Any:
    """The MCP server (an ``mcp.server.mcpserver.MCPServer``) with Barnyard's tools over ``table`` (default: a new
    :class:`GameTable` with ``limits``). ``deal``: tests only, the first position of every new game
    (:class:`SeatGame`)."""
    import anyio
    import anyio.to_thread
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    limits = limits or (table.limits if table is not None else Limits())
    table = table or GameTable(limits)
    server = MCPServer("barnyard", instructions=INSTRUCTIONS)
    limiters: dict[str, Any] = {}

    def limiter(kind: str) -> Any:
        if kind not in limiters:
            size = limits.bot_threads if kind == "bots" else limits.quick_threads
            limiters[kind] = anyio.CapacityLimiter(size)
        return limiters[kind]

    async def run(kind: str, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker thread (``kind``: its pool), a :class:`Refusal` as the tool's error."""
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args), limiter=limiter(kind))
        except Refusal as err:
            raise ToolError(str(err)) from None

    async def seat_game(game_id: str, token: str) -> tuple[SeatGame, int]:
        def find() -> tuple[SeatGame, int]:
            game = table.get(game_id)
            return game, game.seat_of(token)

        return await run("quick", find)

    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

    @server.tool(annotations=reads)
    async def catalog() -> dict[str, Any]:
        """The games this server plays: each game's id, title, options (default and allowed values) and opponent
        policies, and the server's limits."""
        return await run("quick", game_catalog, limits)

    @server.tool(annotations=writes)
    async def new_game(
        game: str,
        options: dict[str, Any] | None = None,
        seat: int | None = None,
        mcp_seats: int | list[int] | None = None,
        opponents: str | list[str] | None = None,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """Start a game. game: a game id (catalog lists them); options: the game's options, e.g.
        {"num_players": 2}; seat: your seat (default 0); or mcp_seats: how many seats MCP clients play (seats 0 to
        k-1) or which (a list), each with its own token; opponents: the policy of every other seat in seat order,
        one spec or a list (random, greedy, search:N, ...; default greedy); seed: makes the deal and the opponents
        reproducible (default: the server draws one, shown in the result when the game is over). Returns the
        game_id and each MCP seat's token: keep them secret, every call for a seat needs its token. Opponents to
        move first have moved when this returns."""

        def start() -> SeatGame:
            table.reserve()
            try:
                made = SeatGame(game, options, seat, mcp_seats, opponents, seed, limits.checkpoint_folders, deal)
            except BaseException:
                table.release()
                raise
            table.add(made)
            return made

        made = await run("bots", start)
        await run("bots", made.advance)

        def answer() -> dict[str, Any]:
            public = made.public()
            with made.lock:
                seats = [{"seat": s, "token": t, "status": made.status(s)} for s, t in made.tokens.items()]
            out = {**public, "mcp_seats": seats}
            if len(seats) == 1:
                out["your_seat"], out["token"] = seats[0]["seat"], seats[0]["token"]
            return out

        return await run("quick", answer)

    @server.tool(annotations=reads)
    async def view(game_id: str, token: str, format: Format = "both") -> dict[str, Any]:
        """Your seat's view: status (your_turn, waiting, submitted, over, halted), recent moves as you saw them,
        and by format the view as JSON (board, your hand, public counts, whose turn, scores, legal moves) and/or
        as text (rules in brief, the position, the numbered legal moves, how to answer)."""
        game, s = await seat_game(game_id, token)
        return await run("quick", game.report, s, format)

    @server.tool(annotations=reads)
    async def legal_moves(game_id: str, token: str) -> dict[str, Any]:
        """Your seat's legal moves now, each with its number (from 1), notation and action id; empty unless it is
        your turn."""
        game, s = await seat_game(game_id, token)
        return await run("quick", game.moves, s)

    @server.tool(annotations=writes)
    async def play_move(
        game_id: str, token: str, move: str | int | dict[str, Any], format: Format = "both"
    ) -> dict[str, Any]:
        """Play your move: its notation (e.g. "play 5"), its number in the listed moves (3), JSON ({"move": ...})
        or a reply whose last line is "Answer: <move>". A move that is not legal now is refused with the reason and
        changes nothing. The opponents then move; the answer is your view after them (as view's), with accepted:
        the move played. In a simultaneous phase your choice is held, face down, until the others are in."""
        game, s = await seat_game(game_id, token)
        reply = move if isinstance(move, str) else json.dumps(move if isinstance(move, dict) else {"move": move})
        action, notation = await run("quick", game.submit, s, reply)
        await run("bots", game.advance)
        out = await run("quick", game.report, s, format)
        return {"accepted": notation, "action": action, **out}

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False))
    async def resign(game_id: str, token: str) -> dict[str, Any]:
        """Resign: the game ends at once for every seat; yours scores -1, every other seat +1/(n-1)."""
        game, s = await seat_game(game_id, token)
        return await run("quick", game.resign, s)

    @server.tool(annotations=reads)
    async def result(game_id: str, token: str) -> dict[str, Any]:
        """How the game ended: over (false while it is played), and then each seat's return and score, the
        winners, who resigned, the number of moves and the seed."""
        game, s = await seat_game(game_id, token)

        def ended() -> dict[str, Any]:
            with game.lock:
                return {
                    "game_id": game.id,
                    "seat": s,
                    "over": game.over,
                    "status": game.status(s),
                    "result": game.result(s),
                }

        return await run("quick", ended)

    @server.tool(annotations=reads)
    async def list_games() -> dict[str, Any]:
        """The live games on this server, with public facts only: game, options, who plays each seat ("mcp" or a
        policy), status, moves so far, seats to move. No hand, bid, seed or token."""

        def listing() -> dict[str, Any]:
            return {"games": [g.public() for g in table.games()], "max_games": limits.max_games}

        return await run("quick", listing)

    return server


# ----- stdio, bounded ---------------------------------------------------------------------------------------------
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,100}")')


class _Wire:
    """The JSON-RPC side of stdout: whole lines, one writer at a time (the SDK's and the refusals)."""

    def __init__(self, raw: IO[bytes]):
        import anyio

        self.raw = raw
        self.lock = anyio.Lock()

    async def write(self, text: str) -> None:
        import anyio.to_thread

        async with self.lock:
            await anyio.to_thread.run_sync(self._write, text.encode())

    def _write(self, data: bytes) -> None:
        self.raw.write(data)
        self.raw.flush()

    async def flush(self) -> None:
        pass


class _BoundedLines:
    """stdin for the SDK's stdio transport: JSON-RPC lines of at most ``limit`` bytes. A longer line is read on
    and dropped, never held whole, and answered with a JSON-RPC error (to its id, where its first bytes name one)."""

    def __init__(self, raw: IO[bytes], limit: int, wire: _Wire):
        self.raw, self.limit, self.wire = raw, limit, wire

    def __aiter__(self) -> _BoundedLines:
        return self

    async def __anext__(self) -> str:
        import anyio.to_thread

        while True:
            line = await anyio.to_thread.run_sync(self.raw.readline, self.limit + 1, abandon_on_cancel=True)
            if not line:
                raise StopAsyncIteration
            if len(line) <= self.limit or line.endswith(b"\n") and len(line) == self.limit + 1:
                return line.decode("utf-8", "replace")
            head = line[:512]
            while line and not line.endswith(b"\n"):
                line = await anyio.to_thread.run_sync(self.raw.readline, 1 << 16, abandon_on_cancel=True)
            await self.refuse(head)

    async def refuse(self, head: bytes) -> None:
        message = f"request refused: over {self.limit} bytes (this server's limit); nothing was done"
        found = _ID.search(head)
        if found is None:
            print(f"barnyard mcp: {message} (no id to answer)", file=sys.stderr)
            return
        error = {"jsonrpc": "2.0", "id": json.loads(found.group(1)), "error": {"code": -32600, "message": message}}
        await self.wire.write(json.dumps(error) + "\n")


async def serve_stdio(server: Any, limit: int, stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Serve ``server`` over ``stdin`` / ``stdout`` (binary), each request line at most ``limit`` bytes."""
    from mcp.server.stdio import stdio_server

    wire = _Wire(stdout)
    lines = _BoundedLines(stdin, limit, wire)
    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs, over our bounded streams
    async with stdio_server(lines, wire) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def run_stdio(server: Any, limit: int) -> None:
    """Serve over this process's stdin and stdout; fd 0 and 1 point elsewhere meanwhile (/dev/null, stderr), so a
    stray print cannot corrupt the wire."""
    import anyio

    stdin = os.fdopen(os.dup(0), "rb")
    stdout = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)
    anyio.run(serve_stdio, server, limit, stdin, stdout)


# ----- HTTP ---------------------------------------------------------------------------------------------------------
def loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def http_app(server: Any, host: str, limits: Limits) -> Any:
    """The streamable HTTP app (path ``/mcp``): bodies over ``limits.max_request_bytes`` refused (413), at most
    ``limits.max_sessions`` sessions, each closed after ``limits.ttl`` idle seconds, and requests only for the
    served host names (the SDK's DNS-rebinding guard)."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if not loopback(host) and host not in ("0.0.0.0", "::", ""):
        shown_host = f"[{host}]" if ":" in host else host
        hosts.append(f"{shown_host}:*")
        origins.append(f"http://{shown_host}:*")
    return server.streamable_http_app(
        max_request_body_size=limits.max_request_bytes,
        max_sessions=limits.max_sessions,
        session_idle_timeout=limits.ttl,
        host=host,
        transport_security=TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins),
    )


def main(argv: list[str] | None = None) -> None:
    """``barnyard mcp``: serve the tools on stdio, or on HTTP with ``--http``."""
    parser = argparse.ArgumentParser(
        prog="barnyard mcp", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on with --http (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port with --http (default {DEFAULT_PORT})")
    parser.add_argument(
        "--allow-remote", action="store_true", help="allow a --host other machines can reach (no other protection)"
    )
    parser.add_argument("--ttl", type=float, default=1800.0, help="seconds a game is kept after its last call")
    parser.add_argument("--max-games", type=int, default=64, help="live games at most (default 64)")
    parser.add_argument(
        "--checkpoint-dir",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a folder of checkpoints opponents may load, besides checkpoints/ and runs/ (repeat for several)",
    )
    args = parser.parse_args(argv)
    with command_errors():
        if not args.http and (args.host != "127.0.0.1" or args.port != DEFAULT_PORT or args.allow_remote):
            raise ValueError("--host, --port and --allow-remote go with --http (stdio is the default transport)")
        if not loopback(args.host) and not args.allow_remote:
            raise ValueError(
                f"--host {args.host} can be reached from other machines: add --allow-remote to serve there anyway"
            )
        if not 0 < args.ttl <= 7 * 86400 or not 1 <= args.max_games <= 10_000:
            raise ValueError("--ttl takes 0 to 604800 seconds, --max-games 1 to 10000")
        if not 0 <= args.port <= 65535:
            raise ValueError("--port takes 0 to 65535")
    limits = Limits(
        max_games=args.max_games,
        ttl=args.ttl,
        checkpoint_folders=(Path.cwd() / "checkpoints", Path.cwd() / "runs", *args.checkpoint_dir),
    )
    try:
        server = create_server(limits=limits)
    except ImportError as err:
        _missing_sdk(err)
    if not args.http:
        run_stdio(server, limits.max_request_bytes)
        return
    import uvicorn

    from training.play.web.serve import server_options

    if not loopback(args.host):
        print(f"warning: listening on {args.host}: other machines can reach this server", file=sys.stderr)
    print(f"Barnyard MCP on http://{args.host}:{args.port}/mcp  (Ctrl-C stops)", file=sys.stderr)
    uvicorn.run(http_app(server, args.host, limits), host=args.host, port=args.port, **server_options())


__all__ = ["MCP", "create_server", "http_app", "loopback", "main", "run_stdio", "serve_stdio"]
