"""Bounded load tests of the real server (uvicorn on 127.0.0.1): expensive bot moves, of every game's compiled
search at once or of the network search, do not hold up another game's requests (issues 31, 39); slow-header and
slow-body connections are cut (issue 39). Slow: about 20 s in all."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.request

import numpy as np
import pytest

from training.play.web.sessions import MAX_NETWORK_SIMULATIONS

pytestmark = [pytest.mark.slow, pytest.mark.timing]  # latencies: run alone (pytest -m timing)

REQUESTS = 400
"""At most this many timed requests to the other game, and at most ``SECONDS`` of them."""
SECONDS = 20.0


def call(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


SEARCH_GAMES = {
    "battle_sheep": {"num_players": 2},
    "bestiarium": {"board_size": 6},
    "beasty_borders": {},
    "boaring": {"num_players": 2},
}
"""Every game's compiled search at once (one client each)."""
SEARCH_BUDGET = {"battle_sheep": 4_000, "bestiarium": 10_000, "beasty_borders": 4_000, "boaring": 10_000}
"""Simulations a move: about 0.4-2 s a move with the four searches sharing two cores (at 2,000, Battle Sheep's took
0.19 s on an idle machine, too short to measure other requests against; Boaring's at 4,000 took 0.07-0.14 s, and
Bestiarium's, since its search got faster, 0.05-0.11 s (a CI run on 2026-12-05), so both search the web's largest
budget)."""
MOVES = 3
"""Bot moves per searching game at most."""


def wait_for_searches(server: str) -> None:
    """The session's server compiles the searches at start-up (numba's cache: about a second); wait for it."""
    deadline = time.monotonic() + 300  # a fresh install compiles them: about 70 s of CPU
    while not call("GET", f"{server}/api/catalogue")["search_ready"]:
        assert time.monotonic() < deadline, "the searches did not compile within 300 s"
        time.sleep(0.2)


@pytest.mark.parametrize(
    "expensive",
    ["every-game-search", f"mcts:checkpoints/battle_sheep/policy.pt:{MAX_NETWORK_SIMULATIONS}"],
    ids=["compiled-searches", "network-mcts"],
)
def test_an_expensive_bot_move_does_not_slow_another_game(server, expensive):
    """Every compiled search releases the interpreter (numba ``nogil``) and runs in a worker thread; the network
    search (Python and torch) holds it between torch calls, so the thread switch interval bounds the wait."""
    assert server.startswith("http://127.0.0.1:")
    wait_for_searches(server)
    if expensive == "every-game-search":
        slow = {
            game: call(
                "POST",
                f"{server}/api/games",
                {"game": game, "options": options, "seats": [f"search:{SEARCH_BUDGET[game]}"] * 2, "seed": 2},
            )["id"]
            for game, options in SEARCH_GAMES.items()
        }
    else:
        slow = {
            "battle_sheep": call(
                "POST",
                f"{server}/api/games",
                {"game": "battle_sheep", "options": {"num_players": 2}, "seats": [expensive, expensive], "seed": 2},
            )["id"]
        }
    other = call(
        "POST",
        f"{server}/api/games",
        {"game": "boaring", "options": {"num_players": 3}, "seats": ["human", "random", "random"]},
    )
    headers = {"X-Seat-Token": other["tokens"]["0"]}
    thinking: dict[str, list[tuple[float, float]]] = {game: [] for game in slow}
    stop = threading.Event()

    def bot_moves(game: str, gid: str) -> None:
        while not stop.is_set() and len(thinking[game]) < (MOVES if len(slow) > 1 else 6):
            t0 = time.perf_counter()
            call("POST", f"{server}/api/games/{gid}/step")
            thinking[game].append((t0, time.perf_counter()))

    workers = [threading.Thread(target=bot_moves, args=item, daemon=True) for item in slow.items()]
    for worker in workers:
        worker.start()
    latencies: list[tuple[float, float]] = []
    began = time.perf_counter()
    try:
        while (
            len(latencies) < REQUESTS
            and time.perf_counter() - began < SECONDS
            and any(worker.is_alive() for worker in workers)
        ):
            t0 = time.perf_counter()
            p = call("GET", f"{server}/api/games/{other['id']}", headers=headers)
            t1 = time.perf_counter()
            assert p["viewer"] == 0
            latencies.append((t0, t1 - t0))
            time.sleep(0.01)
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=60)
    for game, moves in thinking.items():  # the bot moves really were expensive, in every game
        assert moves and np.mean([b - a for a, b in moves]) > 0.1, (game, moves)
    moves = [m for game_moves in thinking.values() for m in game_moves]
    during = [lat for t0, lat in latencies if any(a <= t0 <= b for a, b in moves)]
    assert len(during) >= 5, latencies  # (a search holding the interpreter lets about one through a move)
    p50, p99 = np.percentile(during, [50, 99])
    each = ", ".join(f"{game} {len(m)} x {np.mean([b - a for a, b in m]):.2f} s" for game, m in thinking.items())
    print(
        f"\nbot moves of {expensive}: {each}; {len(during)} requests to another game meanwhile: "
        f"p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {max(during) * 1000:.1f} ms"
    )
    assert p99 < 0.100


# ----- slow connections ---------------------------------------------------------------------------------------------
def closed_by_server(sock: socket.socket, drip: bytes, seconds: float) -> float | None:
    """Send ``drip`` a byte every 0.2 s for at most ``seconds``; the time at which the server closed the connection
    (None if it stayed open)."""
    t0 = time.monotonic()
    sock.settimeout(0.2)
    i = 0
    while time.monotonic() - t0 < seconds:
        try:
            if sock.recv(4096) == b"":
                return time.monotonic() - t0
        except TimeoutError:
            pass
        except OSError:
            return time.monotonic() - t0
        try:
            if drip:
                sock.sendall(drip[i % len(drip) : i % len(drip) + 1])
        except OSError:
            return time.monotonic() - t0
        i += 1
    return None


def test_slow_header_and_slow_body_connections_are_cut():
    """uvicorn waits for ever for a request's headers and the app for its body; ``serve`` bounds both (1 s here)."""
    from tests.web.conftest import serve
    from training.play.web.app import create_app

    gen = serve(create_app(body_seconds=1.0), header_seconds=1.0, keep_alive_seconds=1.0)
    base = next(gen)
    port = int(base.rsplit(":", 1)[1])
    try:
        results = {}
        socks = {}
        for kind in ("header", "body", "idle"):
            socks[kind] = socket.create_connection(("127.0.0.1", port), timeout=5)
        socks["header"].sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks["body"].sendall(
            b"POST /api/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000\r\n\r\n["
        )
        threads = [
            threading.Thread(target=lambda k=k, d=d: results.__setitem__(k, closed_by_server(socks[k], d, 6.0)))
            for k, d in (("header", b"X-A: b\r\n"), ("body", b"1,"), ("idle", b""))
        ]  # idle: sends nothing
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)
        for kind, took in results.items():
            assert took is not None and took < 4.0, (kind, took, results)
        # a normal request is still served
        assert call("GET", f"{base}/api/catalogue")["games"]
    finally:
        for sock in socks.values():
            sock.close()
        next(gen, None)


def test_bodies_that_routes_never_read_are_cut_too():
    """A route that answers without reading its body (``GET /``, the catalogue, a step, a close) left the rest of
    the body to uvicorn, which read it for ever: ``Content-Length: 60000`` and a byte now and then held the
    connection open (issue 50). The rest now has ``body_seconds`` (1 s here) after the answer."""
    from tests.web.conftest import serve
    from training.play.web.app import create_app

    gen = serve(create_app(), header_seconds=5.0, keep_alive_seconds=5.0, body_seconds=1.0)
    base = next(gen)
    port = int(base.rsplit(":", 1)[1])
    game = call(
        "POST", f"{base}/api/games", {"game": "bestiarium", "options": {"board_size": 5}, "seats": ["random"] * 2}
    )
    socks = {}
    try:
        results: dict[str, float | None] = {}
        for method, path in (
            ("GET", "/"),
            ("GET", "/api/catalogue"),
            ("POST", f"/api/games/{game['id']}/step"),
            ("GET", "/static/style.css"),
            ("GET", "/api/nothing-here"),
        ):
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(
                f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Content-Length: 60000\r\n\r\n{".encode()
            )
            socks[path] = sock
        threads = [
            threading.Thread(target=lambda p=p: results.__setitem__(p, closed_by_server(socks[p], b"1", 6.0)))
            for p in socks
        ]  # a byte every 0.2 s: each restarted uvicorn's keep-alive timer
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=10)
        assert len(results) == len(socks) and all(took is not None and took < 4.0 for took in results.values()), results
        # a body that does arrive in time keeps the connection for the next request
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/catalogue", body=b"x" * 1000)
        assert conn.getresponse().read()
        conn.request("GET", "/api/catalogue")
        assert json.loads(conn.getresponse().read())["games"]
        conn.close()
    finally:
        for sock in socks.values():
            sock.close()
        next(gen, None)
