"""Load on the web app from outside: ``python -m lab.web_load SCENARIO [--seconds S]``.

Starts ``barnyard serve``'s app (``freeze=True`` unless ``--no-freeze``) with its uvicorn settings in a child
process on 127.0.0.1 and a free port, sends one bounded load, and prints how long it took, the server's resident
memory before, at its peak (``VmHWM``, reset first) and after, and the latency of ``GET /`` asked every 20 ms
meanwhile (p50, p99, max). Linux only (``/proc``). To measure another tree, put it first on ``PYTHONPATH``; the
child inherits it.

Scenarios (issue 50):

* ``idle``: nothing but ``GET /`` for ``--seconds`` (the yardstick);
* ``zeros``, ``zeros4``: one, then four at once, 8 MiB bodies ``[0,0,...]`` (4 million numbers) to
  ``/api/tournaments``;
* ``strings4``: four 8 MiB bodies ``["ab","ab",...]`` at once;
* ``budget4``: four bodies of just under the opened-file budget of values (``{"x": ["ab", ...]}``, a million
  strings, 6 MB) at once: parsed, then refused as no tournament;
* ``replays``: eight clients cycle through the eight games of one record file (8 ten-player Boaring games of
  random play, 13.8 KB) for ``--seconds``: every request asks for a game no longer kept replayed.

Issue 60:

* ``tournament``: one client posts a tournament JSON of 64 policies and 4,096 pair rows (about 595 KB, the most
  the page accepts) to ``/api/tournaments`` in a loop for ``--seconds``.
* ``hostile``: one new Battle Sheep game for each hostile seat (a checkpoint in ``runs/web-load-hostile/`` whose
  weights or sidecar link out of the served folders, whose weights are a FIFO or ``/dev/zero``, whose sidecar
  declares 10**9 simulations or ``guided:999999999:999999999``; over-cap budgets) and one at a time, after one
  game of two random seats (the first game's imports); each line gives the status, the seconds and the server's
  peak memory growth. A request unanswered in 20 s is reported as
  such (the FIFO held the server before it was refused).
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import numpy as np

SCENARIOS = ("idle", "zeros", "zeros4", "strings4", "budget4", "replays", "tournament", "hostile")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.web_load", description=__doc__)
    parser.add_argument("scenario", choices=SCENARIOS)
    parser.add_argument(
        "--seconds", type=float, default=15.0, help="how long the replay or tournament clients run (default 15)"
    )
    parser.add_argument(
        "--no-freeze", action="store_true", help="start the app without serve's freeze=True (gc.freeze once started)"
    )
    args = parser.parse_args(argv)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import uvicorn\nfrom training.play.web.app import create_app\n"
            "from training.play.web.serve import server_options\n"
            f"uvicorn.run(create_app(freeze={not args.no_freeze}), host='127.0.0.1', port={port}, "
            "**server_options())",
        ]
    )
    try:
        run(args.scenario, port, server.pid, args.seconds)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a worker thread held (a FIFO opened before the loader refused them)
            server.kill()
            server.wait()


def request(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def memory(pid: int, field: str = "VmRSS") -> float:
    """``field`` of ``/proc/PID/status``, MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for {pid}")


def run(scenario: str, port: int, pid: int, seconds: float) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            request(port, "GET", "/api/catalogue")
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    if scenario == "hostile":
        hostile_seats(port, pid)
        return
    if scenario == "idle":
        load = lambda: time.sleep(seconds) or "nothing else"  # noqa: E731
    elif scenario == "replays":
        load = replay_clients(port, seconds)
    elif scenario == "tournament":
        load = tournament_client(port, seconds)
    else:
        unit = b'"ab",' if scenario == "strings4" else b"0,"
        body = b"[" + unit * ((8 * 2**20 - 16) // len(unit)) + b"0]"
        if scenario == "budget4":
            body = json.dumps({"x": ["ab"] * 999_990}).encode()
        load = at_once(port, body, 1 if scenario == "zeros" else 4)
    measure(scenario, port, pid, load)


def at_once(port: int, body: bytes, count: int) -> Callable[[], str]:
    def load() -> str:
        statuses: list[int] = []
        threads = [
            threading.Thread(target=lambda: statuses.append(request(port, "POST", "/api/tournaments", body)[0]))
            for _ in range(count)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return f"{count} x {len(body) / 2**20:.1f} MiB: statuses {sorted(statuses)}"

    return load


def replay_clients(port: int, seconds: float) -> Callable[[], str]:
    from training.arena.records import record_to_json
    from training.arena.tournament import play_game

    records = [record_to_json(play_game("boaring", {"num_players": 10}, ["random"] * 10, seed=s)) for s in range(8)]
    raw = json.dumps(records).encode()
    status, answer = request(port, "POST", "/api/replays", raw)
    assert status == 201, answer[:200]
    rid = json.loads(answer)["id"]

    def load() -> str:
        counts: list[int] = []

        def client(k: int) -> None:
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                status, answer = request(port, "GET", f"/api/replays/{rid}/{(k + n) % 8}/0")
                assert status == 200, answer[:200]
                n += 1
            counts.append(n)

        threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return f"a {len(raw) / 1000:.1f} KB file of 8 games, 8 clients: {sum(counts)} replay requests"

    return load


def tournament_body(policies: int = 64) -> bytes:
    """A tournament JSON of ``policies`` policies with a pair row for every ordered pair, themselves included
    (``policies ** 2`` rows: the most the page accepts)."""
    names = [f"policy{i:02d}" for i in range(policies)]
    pair = {"games": 100, "wins": 50, "draws": 0, "losses": 50, "win_share": 0.5}
    pair |= {"interval": [0.4, 0.6], "parity": 0.5, "mean_margin": 0.0}
    data = {
        "game": "bestiarium",
        "options": {},
        "policies": names,
        "games_per_pair": 100,
        "seed": 0,
        "elo": [0.0] * policies,
        "elo_se": [1.0] * policies,
        "seconds_per_move": {n: 0.001 for n in names},
        "pairs": [{"a": a, "b": b, **pair} for a in names for b in names],
    }
    return json.dumps(data, separators=(",", ":")).encode()


def tournament_client(port: int, seconds: float) -> Callable[[], str]:
    body = tournament_body()

    def load() -> str:
        statuses: list[int] = []
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            statuses.append(request(port, "POST", "/api/tournaments", body)[0])
        kinds = sorted(set(statuses))
        return f"one client, a {len(body) / 1000:.0f} KB tournament: {len(statuses)} posts, statuses {kinds}"

    return load


def hostile_seats(port: int, pid: int) -> None:
    import os
    import shutil
    import tempfile
    from pathlib import Path

    source = Path("checkpoints/battle_sheep/policy")
    folder, outside = Path("runs/web-load-hostile"), Path(tempfile.mkdtemp(prefix="web-load-outside-"))
    meta = json.loads(source.with_suffix(".json").read_text())

    def place(where: Path, name: str, **changes: object) -> Path:
        where.mkdir(parents=True, exist_ok=True)
        shutil.copy(source.with_suffix(".pt"), where / f"{name}.pt")
        (where / f"{name}.json").write_text(json.dumps(meta | changes))
        return where / name

    def link(path: Path, target: str | Path) -> None:
        path.unlink()
        path.symlink_to(target)

    try:
        place(outside, "policy")
        x, y, pipe, zero = (place(folder, n) for n in ("x", "y", "pipe", "zero"))
        link(x.with_suffix(".pt"), outside / "policy.pt")
        link(y.with_suffix(".json"), outside / "policy.json")
        os.mkfifo(folder / "fifo")
        link(pipe.with_suffix(".pt"), (folder / "fifo").resolve())
        link(zero.with_suffix(".pt"), "/dev/zero")
        config = meta["config"] | {"simulations": 10**9}
        huge = place(folder, "huge", algo="alphazero", config=config, play="mcts")
        wide = place(folder, "wide", play="guided:999999999:999999999")
        specs = [
            *(f"{form}{x}.json" for form in ("", "agent:", "sym:", "sample:")),
            f"guided:{x}.json:3:10",
            f"mcts:{x}.json:4",
            f"{y}.pt",
            f"{pipe}.json",
            f"agent:{pipe}.json",
            f"{zero}.json",
            f"guided:{zero}.json:3:10",
            f"mcts:{huge}.pt",
            f"agent:{huge}.pt",
            f"agent:{wide}.pt",
            f"guided:{source}.pt:24:999999999",
            "search:0",
            "random:7",
            "greedy:3",
            "search:1e20",
        ]
        warm = json.dumps({"game": "battle_sheep", "options": {"num_players": 2}, "seats": ["random", "random"]})
        assert request(port, "POST", "/api/games", warm.encode())[0] == 201  # the first game's imports and engine
        for spec in specs:
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")
            before = memory(pid)
            body = json.dumps({"game": "battle_sheep", "options": {"num_players": 2}, "seats": ["random", spec]})
            t0 = time.perf_counter()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
                conn.request("POST", "/api/games", body=body, headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                status, text = str(response.status), json.loads(response.read()).get("error") or "created"
                conn.close()
            except TimeoutError:
                status, text = "---", "no answer within 20 s"
            took = time.perf_counter() - t0
            growth = memory(pid, "VmHWM") - before
            print(f"{status} {took:5.2f} s +{growth:4.0f} MB  {spec[:60]:60}  {text[:90]}", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(outside, ignore_errors=True)


def measure(scenario: str, port: int, pid: int, load: Callable[[], str]) -> None:
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current resident size
    before = memory(pid)
    latencies: list[float] = []
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            t0 = time.perf_counter()
            status, _ = request(port, "GET", "/")
            latencies.append(time.perf_counter() - t0)
            assert status == 200
            time.sleep(0.02)

    prober = threading.Thread(target=probe)
    prober.start()
    t0 = time.perf_counter()
    try:
        what = load()
    finally:
        took = time.perf_counter() - t0
        stop.set()
        prober.join()
    ms = np.array(latencies) * 1000
    peak = memory(pid, "VmHWM") - before
    print(
        f"{scenario}: {what}; {took:.1f} s; server memory {before:.0f} MB before, peak +{peak:.0f} MB, "
        f"{memory(pid):.0f} MB after; GET / x {len(ms)}: p50 {np.percentile(ms, 50):.0f} ms, "
        f"p99 {np.percentile(ms, 99):.0f} ms, max {ms.max():.0f} ms"
    )


if __name__ == "__main__":
    main()
