"""A bounded load test of the real server (uvicorn on 127.0.0.1): one expensive bot move does not hold up another
game's requests (issue 31). Slow: about 15 s."""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import numpy as np
import pytest

from training.play.web.sessions import MAX_NETWORK_SIMULATIONS, MAX_SIMULATIONS

pytestmark = pytest.mark.slow

REQUESTS = 400
"""At most this many timed requests to the other game, and at most ``SECONDS`` of them."""
SECONDS = 20.0


def call(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json",
                                                                         **(headers or {})})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


@pytest.mark.parametrize("expensive", [f"search:{MAX_SIMULATIONS}",
                                       f"mcts:checkpoints/battle_sheep/policy.pt:{MAX_NETWORK_SIMULATIONS}"],
                         ids=["compiled-search", "network-mcts"])
def test_an_expensive_bot_move_does_not_slow_another_game(server, expensive):
    """The compiled search releases the interpreter; the network search (Python and torch) holds it between
    torch calls, so the thread switch interval bounds the wait."""
    assert server.startswith("http://127.0.0.1:")
    # warm up (the compiled search's first call loads its kernel)
    warm = call("POST", f"{server}/api/games", {"game": "battle_sheep", "options": {"num_players": 2},
                                                 "seats": ["search:10", "random"], "seed": 1})
    call("POST", f"{server}/api/games/{warm['id']}/step")
    slow = call("POST", f"{server}/api/games", {"game": "battle_sheep", "options": {"num_players": 2},
                                                 "seats": [expensive, expensive], "seed": 2})
    other = call("POST", f"{server}/api/games", {"game": "boaring", "options": {"num_players": 3},
                                                  "seats": ["human", "random", "random"]})
    headers = {"X-Seat-Token": other["tokens"]["0"]}
    thinking: list[tuple[float, float]] = []
    stop = threading.Event()

    def bot_moves():
        while not stop.is_set() and len(thinking) < 6:
            t0 = time.perf_counter()
            call("POST", f"{server}/api/games/{slow['id']}/step")
            thinking.append((t0, time.perf_counter()))

    worker = threading.Thread(target=bot_moves, daemon=True)
    worker.start()
    latencies: list[float] = []
    began = time.perf_counter()
    try:
        while len(latencies) < REQUESTS and time.perf_counter() - began < SECONDS and worker.is_alive():
            t0 = time.perf_counter()
            p = call("GET", f"{server}/api/games/{other['id']}", headers=headers)
            t1 = time.perf_counter()
            assert p["viewer"] == 0
            latencies.append((t0, t1 - t0))
            time.sleep(0.01)
    finally:
        stop.set()
        worker.join(timeout=60)
    moves = list(thinking)
    assert moves and min(b - a for a, b in moves) > 0.2, moves  # the bot moves really were expensive
    during = [lat for t0, lat in latencies if any(a <= t0 <= b for a, b in moves)]
    assert len(during) >= 5, latencies  # (a search holding the interpreter lets about one through a move)
    p50, p99 = np.percentile(during, [50, 99])
    print(f"\n{len(moves)} bot moves of {expensive} (battle_sheep), {np.mean([b - a for a, b in moves]):.2f} s each;"
          f" {len(during)} requests to another game meanwhile: p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
          f"max {max(during) * 1000:.1f} ms")
    assert p99 < 0.100
