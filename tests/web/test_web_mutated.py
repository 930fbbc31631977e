"""Every request a client can send gets a 2xx or a 4xx with a reason, never a 500 (issue 50, item 1): valid bodies of
every route, mutated at every place by values of the wrong kind (lists, objects, lone surrogates, numbers beyond a
float, deep nesting, ...), and hostile path and query parameters."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason='the web app needs its extra: pip install -e ".[web]"')
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the [web-test] extra)")

from starlette.testclient import TestClient  # noqa: E402

from training.play.web.app import SECURITY_HEADERS, create_app  # noqa: E402

RAW = "\x00raw:"
"""A string value standing for a raw JSON token written into the body as is (``1e309`` is no Python float)."""

HOSTILE: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    2**63,
    "",
    "x" * 500,
    "human",
    "\ud800",
    "a\udfffb",
    [],
    [[]],
    [{}],
    ["random", []],
    {},
    {"a": []},
    {"\ud800": 1},
    RAW + "1e309",
    RAW + "-1e309",
    RAW + "NaN",
    RAW + "[" * 18 + "]" * 18,
]
"""What each place of a body is replaced by, in turn."""

INTERNALS = ("Traceback", "TypeError", "ValueError", "KeyError", "unhashable", "object of type", "surrogates")


def paths(value: Any, here: tuple = ()) -> Iterator[tuple]:
    """Every place in a JSON value (the root too); of a long list, its first, middle and last items only."""
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*here, key))
    elif isinstance(value, list):
        for i in sorted({0, len(value) // 2, len(value) - 1} if value else ()):
            yield from paths(value[i], (*here, i))


def replaced(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def encode(value: Any) -> bytes:
    """JSON with the :data:`RAW` strings written as raw tokens."""
    text = json.dumps(value)
    for item in HOSTILE:
        if isinstance(item, str) and item.startswith(RAW):
            text = text.replace(json.dumps(item), item[len(RAW) :])
    return text.encode()


def mutations(body: Any) -> Iterator[bytes]:
    """``body`` with each place replaced by each hostile value, then with a key added to each object."""
    for path in paths(body):
        for new in HOSTILE:
            yield encode(replaced(body, path, new))
    for path in paths(body):
        target = body
        for step in path:
            target = target[step]
        if isinstance(target, dict):
            for new in HOSTILE:
                yield encode(replaced(body, path, {**target, "extra": new}))
            for key in ("\ud800", "x" * 300):
                yield encode(replaced(body, path, {**target, key: [[]]}))


def check(response, what: str) -> str | None:
    """Why ``response`` is not a clean answer (None if it is)."""
    if response.status_code >= 500:
        return f"{what}: {response.status_code} {response.text[:200]}"
    if response.status_code >= 400:
        try:
            message = response.json()["error"]
        except (ValueError, KeyError, TypeError):
            return f"{what}: {response.status_code} without a JSON error: {response.text[:200]}"
        if not isinstance(message, str) or not message or len(message) > 600:
            return f"{what}: a bad message {message!r:.200}"
        if any(word in message for word in INTERNALS):
            return f"{what}: Python internals in {message!r:.200}"
    for name, _ in SECURITY_HEADERS:
        if name.decode() not in response.headers:
            return f"{what}: no {name.decode()} header"
    return None


def valid_bodies() -> dict[str, Any]:
    from training.arena.records import record_to_json
    from training.arena.tournament import play_game, run_tournament

    record = record_to_json(play_game("beasty_borders", {}, ["random", "greedy"], seed=3))
    tournament = run_tournament(
        "beasty_borders", {}, ["random", "greedy"], games=2, seed=1, workers=1, progress=False
    ).to_json()
    return {
        "game": {"game": "bestiarium", "options": {"board_size": 5}, "seats": ["human", "random"]},
        "watch": {"game": "boaring", "options": {"num_players": 3}, "seats": ["random", "greedy", "random"], "seed": 4},
        "replay": [record, record],
        "tournament": tournament,
    }


def fresh_game(client) -> tuple[str, dict[str, str], dict[str, Any]]:
    start = client.post(
        "/api/games", json={"game": "bestiarium", "options": {"board_size": 5}, "seats": ["human", "random"]}
    ).json()
    headers = {"X-Seat-Token": start["tokens"]["0"]}
    move = {"seat": 0, "action": start["moves"][0]["id"]}
    return start["id"], headers, move


def test_mutated_requests_to_every_route_get_a_2xx_or_a_4xx_with_a_reason():
    app = create_app()
    problems: list[str] = []
    sent = 0
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        bodies = valid_bodies()

        def send(method: str, url: str, content: bytes | None = None, headers: dict | None = None) -> None:
            nonlocal sent
            sent += 1
            problem = check(
                client.request(method, url, content=content, headers=headers or {}),
                f"{method} {url[:60]} {content!r:.160}",
            )
            if problem:
                problems.append(problem)

        for name in ("game", "watch"):
            for body in mutations(bodies[name]):
                send("POST", "/api/games", body)
        for body in mutations(bodies["replay"]):
            send("POST", "/api/replays?name=x", body)
        for body in mutations(bodies["tournament"]):
            send("POST", "/api/tournaments", body)
        # a game's routes: its move body mutated, and every route with hostile parameters
        gid, me, move = fresh_game(client)
        for i, body in enumerate(mutations(move)):
            if i % 25 == 0:
                gid, me, move = fresh_game(client)
            send("POST", f"/api/games/{gid}/move", body, me)
        words = [
            "",
            "-1",
            "0",
            "1",
            "99",
            "1e309",
            "9" * 50,
            "%ED%A0%80",
            "%FF",
            "%00",
            "..%2F..",
            "x" * 300,
            "[]",
            "{}",
        ]
        rid = client.post("/api/replays", content=json.dumps(bodies["replay"])).json()["id"]
        for word in words:
            gid, me, move = fresh_game(client)
            for method, url, headers in (
                ("GET", f"/api/games/{gid}?seat={word}", me),
                ("GET", f"/api/games/{gid}?token={word}", {}),
                ("GET", f"/api/games/{gid}", {"X-Seat-Token": word}),
                ("POST", f"/api/games/{gid}/step?seat={word}", me),
                ("GET", f"/api/games/{gid}/record?seat={word}", me),
                ("GET", f"/api/games/{word}", {}),
                ("POST", f"/api/games/{word}/move", {}),
                ("GET", f"/api/replays/{rid}/{word}/0", {}),
                ("GET", f"/api/replays/{rid}/0/{word}", {}),
                ("GET", f"/api/replays/{word}/0/0", {}),
                ("POST", f"/api/replays?name={word}", {}),
                ("GET", f"/rules/{word}", {}),
                ("GET", f"/api/{word}", {}),
                ("POST", f"/api/games/{gid}/close?seat={word}", me),
            ):
                send(method, url, json.dumps(move).encode() if url.endswith("/move") else None, headers)
    assert not problems, f"{len(problems)} of {sent} requests were not answered cleanly:\n" + "\n".join(problems[:25])
    assert sent > 2000


def test_the_cases_of_issue_50_on_a_real_server():
    """The requests that got a 500 before, sent to uvicorn on 127.0.0.1: each gets a 400 with a reason, with the
    security headers, and the connection is not dropped."""
    from tests.web.conftest import serve
    from training.arena.tournament import run_tournament

    tournament = run_tournament(
        "beasty_borders", {}, ["random", "greedy"], games=2, seed=1, workers=1, progress=False
    ).to_json()
    listed = dict(tournament, pairs=[dict(tournament["pairs"][0], a=["random"])])
    keyed = dict(tournament, pairs=[dict(tournament["pairs"][0], b={"x": 1})])
    surrogate = json.dumps(dict(tournament, policies=["\ud800", "greedy"]))
    cases = [
        ("/api/games", json.dumps({"game": "bestiarium", "options": {}, "seats": [[], "random"]})),
        ("/api/tournaments", json.dumps(listed)),
        ("/api/tournaments", json.dumps(keyed)),
        ("/api/tournaments", surrogate),
        ("/api/tournaments", json.dumps(dict(tournament, options={"x": 7})).replace('"x": 7', '"x": 1e309')),
    ]
    from training.arena.records import record_to_json
    from training.arena.tournament import play_game

    record = record_to_json(play_game("beasty_borders", {}, ["random", "greedy"], seed=3))
    cases.append(("/api/replays", json.dumps([dict(record, seats=["\ud800", "random"])])))
    gen = serve(create_app())
    base = next(gen)
    try:
        for url, body in cases:
            request = urllib.request.Request(
                base + url, data=body.encode(), method="POST", headers={"Content-Type": "application/json"}
            )
            with pytest.raises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(request, timeout=30)
            error = caught.value
            assert error.code == 400, (url, body[:100], error.code, error.read()[:200])
            assert error.headers["x-frame-options"] == "DENY"
            assert json.loads(error.read())["error"]
    finally:
        next(gen, None)
