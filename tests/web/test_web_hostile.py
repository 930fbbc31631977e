"""The web app under careless and hostile input (issue 31): hidden information, refused requests that change
nothing, foreign origins and hosts, budgets, sizes, clean 4xx messages, checkpoint paths."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web app needs its extra: pip install -e \".[web]\"")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the [web-test] extra)")

from starlette.testclient import TestClient  # noqa: E402

import envs  # noqa: E402
from training.web.app import create_app  # noqa: E402
from training.web.sessions import PlaySession, SessionStore  # noqa: E402


@pytest.fixture
def client():
    app = create_app()
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.app_store = app.state.store
        yield c


def create(client, game, options, seats, **extra):
    r = client.post("/api/games", json={"game": game, "options": options, "seats": seats, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def token(start, seat):
    return {"X-Seat-Token": start["tokens"][str(seat)]}


# ----- 1. the seed of a game with a human seat ----------------------------------------------------------------------
def test_a_seed_is_refused_when_a_human_plays_and_the_server_deals(client):
    for game, options, seats in (("boaring", {"num_players": 3}, ["human", "random", "random"]),
                                 ("beasty_borders", {}, ["random", "human"]),
                                 ("bestiarium", {"board_size": 5}, ["human", "search"])):
        r = client.post("/api/games", json={"game": game, "options": options, "seats": seats, "seed": 12345})
        assert r.status_code == 400 and "seed" in r.json()["error"], r.text
    assert len(client.app_store) == 0
    # without one the deal comes from the server's entropy: five games, five different hands for seat 0
    hands = []
    for _ in range(5):
        start = create(client, "boaring", {"num_players": 3}, ["human", "random", "random"])
        assert start["seed"] is None
        hands.append(json.dumps(start["board"]["players"][0]["hand"]))
        session = client.app_store.get(start["id"], PlaySession)
        # the seed it was dealt from (shown at the end) really deals it
        dealt = session.game.initial_state(np.random.default_rng(session.seed))
        assert session.game.state_to_json(dealt) == session.game.state_to_json(session.state)
    assert len(set(hands)) > 1
    # a game without a human seat takes a seed and shows it
    watch = create(client, "boaring", {"num_players": 3}, ["random", "greedy", "random"], seed=12345)
    assert watch["seed"] == 12345


# ----- 2. one secret per human seat ---------------------------------------------------------------------------------
def test_each_human_seat_has_its_own_token_and_no_other_seat_gets_its_view(client):
    start = create(client, "boaring", {"num_players": 3}, ["human", "human", "random"])
    gid = start["id"]
    assert set(start["tokens"]) == {"0", "1"} and start["tokens"]["0"] != start["tokens"]["1"]
    # without a token, or with the other seat's, seat 1's view is refused
    for params, headers in (({"seat": 1}, {}), ({}, {}), ({"seat": 1}, token(start, 0)),
                            ({"seat": 1}, {"X-Seat-Token": "guess"}), ({"seat": 0}, token(start, 1))):
        r = client.get(f"/api/games/{gid}", params=params, headers=headers)
        assert r.status_code == 403 and "token" in r.json()["error"], (params, headers, r.text)
        assert "hand" not in r.text
    one = client.get(f"/api/games/{gid}", headers=token(start, 1)).json()
    assert one["viewer"] == 1 and one["board"]["players"][1]["hand"] is not None
    assert one["board"]["players"][0]["hand"] is None
    zero = client.get(f"/api/games/{gid}", params={"token": start["tokens"]["0"]}).json()  # a link's ?token=
    assert zero["viewer"] == 0 and zero["board"]["players"][1]["hand"] is None
    # a token never comes back in a payload
    for payload in (one, zero):
        assert start["tokens"]["0"] not in json.dumps(payload) and start["tokens"]["1"] not in json.dumps(payload)
    # moves: seat 0's move needs seat 0's token; refused moves change nothing
    before = client.get(f"/api/games/{gid}", headers=token(start, 0)).json()
    assert before["status"] == "your_turn"
    action = before["moves"][0]["id"]
    for headers in ({}, token(start, 1), {"X-Seat-Token": "x" * 10_000}):
        r = client.post(f"/api/games/{gid}/move", json={"seat": 0, "action": action}, headers=headers)
        assert r.status_code == 403, r.text
    assert client.get(f"/api/games/{gid}", headers=token(start, 0)).json() == before
    # the record and close need a token too
    assert client.get(f"/api/games/{gid}/record").status_code == 403
    assert client.post(f"/api/games/{gid}/close").status_code == 403
    assert client.get(f"/api/games/{gid}", headers=token(start, 0)).status_code == 200
    r = client.post(f"/api/games/{gid}/move", json={"seat": 0, "action": action}, headers=token(start, 0))
    assert r.status_code == 200 and r.json()["ply"] == 1


# ----- 3. a refused step plays nothing -----------------------------------------------------------------------------
def test_a_refused_step_changes_nothing(client):
    start = create(client, "boaring", {"num_players": 3}, ["random", "human", "random"])
    gid = start["id"]
    assert start["status"] == "bot"
    session = client.app_store.get(gid, PlaySession)
    for params, headers, status in (({"seat": 0}, token(start, 1), 403), ({"seat": "abc"}, token(start, 1), 400),
                                    ({"seat": 2}, token(start, 1), 403), ({}, {}, 403),
                                    ({"seat": 1}, {"X-Seat-Token": "nope"}, 403)):
        r = client.post(f"/api/games/{gid}/step", params=params, headers=headers)
        assert r.status_code == status, (params, r.text)
        assert session.actions == [] and len(session.viewers[1].log) == 0
    r = client.post(f"/api/games/{gid}/step", headers=token(start, 1))
    assert r.status_code == 200 and r.json()["ply"] == 1
    # a watch game: a seat that is not there is refused before the step too
    watch = create(client, "bestiarium", {"board_size": 5}, ["random", "random"])
    for params in ({"seat": 1}, {"seat": "abc"}):
        assert client.post(f"/api/games/{watch['id']}/step", params=params).status_code in (400, 403)
    assert client.get(f"/api/games/{watch['id']}").json()["ply"] == 0


# ----- 4. foreign origins and hosts -----------------------------------------------------------------------------------
def test_foreign_origins_and_hosts_are_refused(client):
    body = json.dumps({"game": "bestiarium", "options": {"board_size": 5}, "seats": ["random", "random"]})
    plain = {"Content-Type": "text/plain"}
    for headers in ({**plain, "Origin": "http://attacker.example"}, {**plain, "Origin": "null"},
                    {**plain, "Origin": "http://localhost:8000"}, {**plain, "Sec-Fetch-Site": "cross-site"}):
        r = client.post("/api/games", content=body, headers=headers)
        assert r.status_code == 403 and "cross-origin" in r.json()["error"], (headers, r.text)
    assert len(client.app_store) == 0
    # DNS rebinding: the attacker's name in Host, for reads and writes alike
    for method, url in (("GET", "/"), ("GET", "/api/catalogue"), ("POST", "/api/games")):
        r = client.request(method, url, content=body, headers={"Host": "attacker.example:8000"})
        assert r.status_code == 400 and "Host" in r.json()["error"], (url, r.text)
        assert "attacker" not in r.text
    assert len(client.app_store) == 0
    # this server's own page, and a client that sends no Origin (curl), are served
    assert client.post("/api/games", content=body, headers={"Origin": "http://127.0.0.1"}).status_code == 201
    assert client.post("/api/games", content=body, headers={"Host": "localhost:8000",
                                                            "Origin": "http://localhost:8000"}).status_code == 201
    assert client.post("/api/games", content=body, headers={"Host": "[::1]:8000"}).status_code == 201
    assert client.post("/api/games", content=body, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 201


def test_serve_answers_for_its_host_and_the_allowed_names(monkeypatch):
    import uvicorn

    from training.web import serve

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, **kw: seen.update(app=app, host=host))
    serve.main(["--host", "192.168.1.5", "--allow-host", "barnyard.lan"])
    with TestClient(seen["app"], base_url="http://barnyard.lan:8000") as c:
        assert c.get("/api/catalogue").status_code == 200
        assert c.get("/api/catalogue", headers={"Host": "192.168.1.5:8000"}).status_code == 200
        assert c.get("/api/catalogue", headers={"Host": "127.0.0.1:8000"}).status_code == 200
        assert c.get("/api/catalogue", headers={"Host": "other.lan"}).status_code == 400


# ----- 5. search budgets --------------------------------------------------------------------------------------------
def test_search_budgets_are_capped_with_a_clear_400(client):
    from training.web.sessions import MAX_SIMULATIONS

    for spec in ("search:0", "search:-5", "search:1000000000", f"search:{MAX_SIMULATIONS + 1}", "search:1e3",
                 "greedy:5", "search:" + "9" * 5000):
        r = client.post("/api/games", json={"game": "bestiarium", "options": {"board_size": 5},
                                            "seats": ["human", spec]})
        assert r.status_code == 400 and r.json()["error"].startswith("seat 1:"), (spec[:40], r.text)
        assert len(r.text) < 300
    assert len(client.app_store) == 0
    start = create(client, "bestiarium", {"board_size": 5}, ["human", f"search:{MAX_SIMULATIONS}"])
    assert start["seats"][1]["policy"] == f"search:{MAX_SIMULATIONS}"


# ----- 9. checkpoints only from the listed folders ------------------------------------------------------------------
def test_checkpoints_load_only_from_the_listed_folders_with_one_message(tmp_path):
    pytest.importorskip("torch")
    import shutil

    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("policy.pt", "policy.json"):
        shutil.copy(f"checkpoints/boaring/{name}", outside / name)
    app = create_app()
    messages = set()
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for spec in ("/etc/shadow", "/etc/passwd", "/no/such/file.pt", str(outside / "policy.pt"),
                     f"sym:{outside / 'policy.pt'}", f"mcts:{outside / 'policy.pt'}:10", "mcts:/etc/passwd",
                     f"guided:{outside / 'policy.pt'}:3:10", "../../../../etc/passwd", "checkpoints/../../etc/passwd",
                     "checkpoints/boaring/nothing.pt"):
            r = c.post("/api/games", json={"game": "boaring", "options": {"num_players": 2},
                                           "seats": ["human", spec]})
            assert r.status_code == 400, (spec, r.text)
            messages.add(r.json()["error"])
        assert len(messages) == 1 and "unknown policy" in messages.pop()
        # a listed one loads
        assert c.post("/api/games", json={"game": "boaring", "options": {"num_players": 4},
                                          "seats": ["checkpoints/boaring/policy.pt", "human", "random", "random"]}
                      ).status_code == 201
    # an explicit --checkpoint-dir is listed and accepted
    app = create_app(checkpoint_dirs=[outside])
    with TestClient(app, base_url="http://127.0.0.1") as c:
        listed = {g["game"]: [x["path"] for x in g["checkpoints"]] for g in c.get("/api/catalogue").json()["games"]}
        assert str(outside / "policy.pt") in listed["boaring"]
        r = c.post("/api/games", json={"game": "boaring", "options": {"num_players": 4},
                                       "seats": [str(outside / "policy.pt"), "human", "random", "random"]})
        assert r.status_code == 201, r.text
