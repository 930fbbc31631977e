"""The web app's JSON API through Starlette's TestClient: full games, refused requests, hidden cards, lifetimes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason='the web app needs its extra: pip install -e ".[web]"')
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the [web-test] extra)")

from starlette.testclient import TestClient  # noqa: E402

import envs  # noqa: E402
from envs.common.hexgrid import DIRECTIONS  # noqa: E402
from training.arena.records import record_to_json, replay  # noqa: E402
from training.arena.tournament import play_game, run_tournament, save_result  # noqa: E402
from training.play.web.app import create_app  # noqa: E402
from training.play.web.views import view_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
from training.play.web.sessions import PlaySession, SessionStore  # noqa: E402

GAMES = {
    "battle_sheep": {"num_players": 2},
    "bestiarium": {"board_size": 5},
    "beasty_borders": {},
    "boaring": {"num_players": 3},
}


class LowestPolicy:
    """Always the lowest legal action id: the lowest food card, 'no eat' (deterministic given the hand)."""

    name = "lowest"

    def reset(self, seed=None):
        pass

    def act(self, decision):
        return int(decision.legal_actions()[0])


class CrashingPolicy(LowestPolicy):
    name = "crash"

    def act(self, decision):
        raise RuntimeError("this policy always fails")


class IllegalPolicy(LowestPolicy):
    name = "illegal"

    def act(self, decision):
        return int(np.flatnonzero(decision.action_mask == 0)[0])


@pytest.fixture
def client():
    app = create_app(
        extra_policies={
            "crash": lambda game, options, seat: CrashingPolicy(),
            "illegal": lambda game, options, seat: IllegalPolicy(),
        }
    )
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.app_store = app.state.store
        yield c


def new_game(client, game, options, seats, seed=None):
    body = {"game": game, "options": options, "seats": seats}
    if seed is not None:
        body["seed"] = seed
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def auth(start, seat):
    """The headers of a request for ``seat`` of the game ``start`` (its creation payload): that seat's token."""
    return {"X-Seat-Token": start["tokens"][str(seat)]}


def check_geometry(p):
    """The click geometry the page gets matches the board it gets (what each move does, where)."""
    board = p["board"]
    if p["game"] == "battle_sheep":
        cells = {(c[0], c[1]): c for c in board["cells"]}
        for m in p["moves"]:
            if m["kind"] == "tile":
                covered = [tuple(c) for c in m["cells"]]
                assert len(set(covered)) == 4 and not any(c in cells for c in covered)
                if cells:
                    assert any((q + dq, r + dr) in cells for q, r in covered for dq, dr in DIRECTIONS)
            elif m["kind"] == "stack":
                assert cells[tuple(m["cell"])][2] == -1
            else:
                start = cells[tuple(m["from"])]
                assert start[2] == p["viewer"] and 1 <= m["count"] < start[3]
                dq, dr = DIRECTIONS[m["dir"]]
                q, r = m["from"]
                steps = 0
                while (q + dq, r + dr) in cells and cells[(q + dq, r + dr)][2] == -1:
                    q, r, steps = q + dq, r + dr, steps + 1
                assert steps >= 1 and [q, r] == m["to"]
    elif p["game"] == "bestiarium":
        for m in p["moves"]:
            if m["kind"] == "cell":
                assert board["cells"][m["cell"]]["stone"] == -1
    elif p["game"] == "beasty_borders":
        for m in p["moves"]:
            if m["kind"] == "type":
                assert board["remaining"][p["viewer"]][m["type"]] > 0
    else:
        me = board["players"][p["viewer"]]
        for m in p["moves"]:
            if m["kind"] == "play":
                assert me["hand"][m["value"] - 1] > 0
            elif m["kind"] == "eat":
                assert board["players"][m["owner"]][m["where"]][m["type"]] > 0


def play_to_end(client, game_id, seat, rng, check=None, headers=None):
    """Play the human seat with random legal-move requests, stepping the bots; returns the final payload."""
    p = client.get(f"/api/games/{game_id}", params={"seat": seat}, headers=headers).json()
    while p["status"] != "over":
        if p["status"] == "bot":
            r = client.post(f"/api/games/{game_id}/step", params={"seat": seat}, headers=headers)
        else:
            assert p["status"] == "your_turn", p
            if check:
                check(p)
            move = p["moves"][int(rng.integers(len(p["moves"])))]
            r = client.post(f"/api/games/{game_id}/move", json={"seat": seat, "action": move["id"]}, headers=headers)
        assert r.status_code == 200, r.text
        p = r.json()
    return p


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_plays_to_the_end_against_random(client, game):
    n = envs.make_game(game, **GAMES[game]).num_players
    start = new_game(client, game, GAMES[game], ["human"] + ["random"] * (n - 1))
    assert start["seed"] is None  # hidden while a human plays: it would tell the deal
    final = play_to_end(client, start["id"], 0, np.random.default_rng(0), check=check_geometry, headers=auth(start, 0))
    result = final["result"]
    assert abs(sum(result["returns"])) < 1e-9 and result["winners"]
    assert final["moves"] == [] and isinstance(final["seed"], int)  # shown at the end
    assert len([e for e in final["log"] if e["ply"] is not None]) == final["ply"] > 0
    # the record of the game replays to the same end
    record = client.get(f"/api/games/{start['id']}/record", headers=auth(start, 0)).json()[0]
    assert record["seed"] == final["seed"]
    *_, (engine, state, _) = replay(record)
    assert [float(x) for x in engine.returns(state)] == result["returns"] == record["returns"]


def test_the_human_gets_exactly_the_legal_moves_in_notation(client):
    start = new_game(client, "bestiarium", {"board_size": 5}, ["human", "random"])
    session = client.app_store.get(start["id"], PlaySession)
    legal = session.game.legal_actions(session.state)
    assert [m["id"] for m in start["moves"]] == legal
    assert [m["text"] for m in start["moves"]] == [session.game.action_to_str(session.state, a) for a in legal]


@pytest.mark.parametrize("game", list(GAMES))
def test_an_illegal_move_is_refused_and_changes_nothing(client, game):
    options = {"variant": "without_luck"} if game == "beasty_borders" else GAMES[game]  # main: all 4 legal at first
    n = envs.make_game(game, **options).num_players
    start = new_game(client, game, options, ["human"] + ["random"] * (n - 1))
    gid = start["id"]
    client.headers.update(auth(start, 0))
    before = client.get(f"/api/games/{gid}", params={"seat": 0}).json()
    assert before["status"] == "your_turn"
    legal = {m["id"] for m in before["moves"]}
    num_actions = envs.make_game(game, **options).num_actions
    illegal = next(a for a in range(num_actions) if a not in legal)
    for body, status in [
        ({"seat": 0, "action": illegal}, 400),
        ({"seat": 0, "action": num_actions}, 400),
        ({"seat": 0, "action": -1}, 400),
        ({"seat": 0, "action": "3"}, 400),
        ({"seat": 0, "action": True}, 400),
        ({"seat": 0, "move": "no such move"}, 400),
        ({"seat": 0}, 400),
        ({"seat": 0, "action": 0, "move": "x"}, 400),
        ({"seat": "0", "action": min(legal)}, 400),
        ({"seat": 1, "action": min(legal)}, 403),
    ]:
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]
    r = client.post(f"/api/games/{gid}/move", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/step")
    assert r.status_code == 409 and "human" in r.json()["error"]
    assert client.get(f"/api/games/{gid}", params={"seat": 0}).json() == before
    # and the game goes on: the first legal move, by notation, is accepted
    r = client.post(f"/api/games/{gid}/move", json={"seat": 0, "move": before["moves"][0]["text"]})
    assert r.status_code == 200 and r.json()["ply"] == 1


def test_bad_requests_get_4xx_with_a_message(client):
    cases = [
        ({"game": "chess", "options": {}, "seats": ["human", "random"]}, 400, "unknown game"),
        ({"game": "bestiarium", "options": {"board_size": 4}, "seats": ["human", "random"]}, 400, "board_size"),
        ({"game": "bestiarium", "options": {"colour": 1}, "seats": ["human", "random"]}, 400, "colour"),
        ({"game": "bestiarium", "options": [], "seats": ["human", "random"]}, 400, "options"),
        ({"game": "bestiarium", "options": {}, "seats": ["human"]}, 400, "2 seats"),
        ({"game": "bestiarium", "options": {}, "seats": ["human", "nobody"]}, 400, "unknown policy"),
        ({"game": "bestiarium", "options": {}, "seats": ["human", "runs/none/policy.pt"]}, 400, "unknown policy"),
        ({"game": "bestiarium", "options": {}, "seats": ["human", "random"], "seed": -3}, 400, "seed"),
        ({"game": "bestiarium", "options": {}, "seats": ["human", "search:x"]}, 400, "seat 1"),
    ]
    for body, status, words in cases:
        r = client.post("/api/games", json=body)
        assert r.status_code == status and words in r.json()["error"], (body, r.text)
    assert client.post("/api/games", json=[1, 2]).status_code == 400
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games/nope/step").status_code == 404
    assert client.get("/api/nothing").status_code == 404
    assert len(client.app_store) == 0  # nothing was created


def test_a_shipped_checkpoint_plays_and_one_for_other_options_is_refused(client):
    pytest.importorskip("torch")
    p = new_game(client, "boaring", {"num_players": 4}, ["checkpoints/boaring/policy.pt", "human", "random", "random"])
    p = client.post(f"/api/games/{p['id']}/step", params={"seat": 1}, headers=auth(p, 1)).json()
    assert p["ply"] == 1 and p["status"] == "your_turn" and p["error"] is None
    r = client.post(
        "/api/games",
        json={"game": "boaring", "options": {"num_players": 2}, "seats": ["human", "checkpoints/boaring/policy.pt"]},
    )
    assert r.status_code == 400 and "seat 1" in r.json()["error"]


def test_a_declared_agent_is_listed_and_plays_as_declared(client):
    pytest.importorskip("torch")
    from training.checkpoint import declared_play

    games = {g["game"]: g for g in client.get("/api/catalogue").json()["games"]}
    for g in games.values():
        for c in g["checkpoints"]:
            declared = declared_play(c["path"])
            assert c.get("play", "network") == declared  # listed exactly when it is not the network alone
    shipped = "checkpoints/battle_sheep/policy.pt"
    assert next(c for c in games["battle_sheep"]["checkpoints"] if c["path"] == shipped)["play"].startswith("sample")
    p = new_game(client, "battle_sheep", {}, [f"agent:{shipped}", "human"])
    p = client.post(f"/api/games/{p['id']}/step", params={"seat": 1}, headers=auth(p, 1)).json()
    assert p["error"] is None and p["ply"] == 1 and p["status"] == "your_turn"  # the agent moved first
    for spec in (f"sample:{shipped}:0", f"sample:{shipped}:1e9", f"sample:{shipped}:hot", "agent:checkpoints/none.pt"):
        r = client.post("/api/games", json={"game": "battle_sheep", "options": {}, "seats": [spec, "human"]})
        assert r.status_code == 400 and "seat 0" in r.json()["error"], spec


def test_two_humans_take_turns_each_with_their_own_view(client):
    start = new_game(client, "boaring", {"num_players": 2}, ["human", "human"])
    gid = start["id"]
    assert start["viewer"] == 0 and start["status"] == "your_turn"
    mine = start["board"]["players"][0]["hand"]
    assert mine is not None and start["board"]["players"][1]["hand"] is None
    p = client.post(
        f"/api/games/{gid}/move", json={"seat": 0, "action": start["moves"][0]["id"]}, headers=auth(start, 0)
    ).json()
    assert p["viewer"] == 0 and p["status"] == "other_human" and p["to_move"] == 1 and p["moves"] == []
    r = client.post(f"/api/games/{gid}/move", json={"seat": 0, "action": 0}, headers=auth(start, 0))
    assert r.status_code == 409
    q = client.get(f"/api/games/{gid}", params={"seat": 1}, headers=auth(start, 1)).json()
    assert q["status"] == "your_turn" and q["board"]["players"][0]["hand"] is None
    assert q["board"]["players"][0]["committed"] and q["board"]["players"][0]["pending"] is None
    assert client.get(f"/api/games/{gid}", headers=auth(start, 1)).json()["viewer"] == 1  # the token's seat


def test_a_human_seat_never_gets_the_spectator_view(client):
    start = new_game(client, "boaring", {"num_players": 3}, ["random", "human", "greedy"])
    gid = start["id"]
    assert start["viewer"] == 1
    for seat in ("0", "2", "x"):
        r = client.get(f"/api/games/{gid}", params={"seat": seat}, headers=auth(start, 1))
        assert r.status_code in (400, 403), r.text
    r = client.get(f"/api/games/{gid}/record", headers=auth(start, 1))
    assert r.status_code == 409  # the record shows every card
    watch = new_game(client, "boaring", {"num_players": 3}, ["random", "greedy", "random"])
    assert watch["viewer"] is None and watch["mode"] == "watch" and "Spectator" in watch["view_label"]
    assert all(p["hand"] is not None for p in watch["board"]["players"])


def _boaring_pair(seed_from: int = 0):
    """Two 3-player Boaring starts that differ only in one card of seat 0's hand (its highest, swapped for a
    higher card from the bottom of the food pile), and that seed."""
    game = envs.make_game("boaring", num_players=3)
    for seed in range(seed_from, seed_from + 200):
        state = game.initial_state(np.random.default_rng(seed))
        hand = state.hands[0]
        top = max(v for v in range(1, 11) if hand[v - 1])
        if state.food_pile[0] > top:
            other = game.clone(state)
            other.hands[0][top - 1] -= 1
            other.hands[0][other.food_pile[0] - 1] += 1
            other.food_pile[0] = top
            return game, state, other, seed
    raise AssertionError("no suitable seed")


def test_boaring_human_payloads_do_not_depend_on_another_players_hidden_card(client):
    """Seat 1 is human; seat 0 (a bot that always plays its lowest card) holds a different highest card in the
    two games. Every payload seat 1 receives is identical until that card is played and revealed."""
    game, a, b, seed = _boaring_pair()
    ids = []
    for start in (a, b):
        session = PlaySession(
            "boaring",
            {"num_players": 3},
            ["lowest", "human", "lowest"],
            seed=seed,
            policies={0: LowestPolicy(), 2: LowestPolicy()},
            start=start,
        )
        ids.append(client.app_store.add(session))
        session.tokens[1] = "seat-one"  # the same token in both games: the payloads are compared whole
    client.headers["X-Seat-Token"] = "seat-one"
    # the two games really differ, and the spectator view would show it
    sessions = [client.app_store.get(i, PlaySession) for i in ids]
    assert sessions[0]._board(None) != sessions[1]._board(None)
    assert sessions[0]._board(1) == sessions[1]._board(1)

    def strip(p):
        return {k: v for k, v in p.items() if k != "id"}

    compared = 0
    payloads = [client.get(f"/api/games/{i}", params={"seat": 1}).json() for i in ids]

    def reveals(p):
        return sum(e["text"].startswith("reveal:") for e in p["log"])

    while reveals(payloads[0]) < 10:  # seat 0 plays its highest card in round 10
        assert strip(payloads[0]) == strip(payloads[1])
        compared += 1
        if payloads[0]["status"] == "bot":
            payloads = [client.post(f"/api/games/{i}/step", params={"seat": 1}).json() for i in ids]
        else:
            action = payloads[0]["moves"][0]["id"]
            payloads = [client.post(f"/api/games/{i}/move", json={"seat": 1, "action": action}).json() for i in ids]
    assert compared >= 30  # 10 rounds of 3 bids (plus any eat decisions)
    # that round's reveal does show the different card
    played = [p["board"]["last"]["played"][0] for p in payloads]
    assert played[0] != played[1]


def test_boaring_log_shows_other_bids_only_at_the_reveal(client):
    start = new_game(client, "boaring", {"num_players": 3}, ["random", "human", "random"])
    gid = start["id"]
    client.headers.update(auth(start, 1))
    assert start["status"] == "bot" and start["log"] == []
    p = client.post(f"/api/games/{gid}/step", params={"seat": 1}).json()
    assert [e["text"] for e in p["log"]] == ["plays a food card face down"]  # seat 0 bid first
    own = p["moves"][0]
    p = client.post(f"/api/games/{gid}/move", json={"seat": 1, "action": own["id"]}).json()
    p = client.post(f"/api/games/{gid}/step", params={"seat": 1}).json()
    texts = [e["text"] for e in p["log"]]
    assert texts[:3] == ["plays a food card face down", own["text"], "plays a food card face down"]
    played = p["board"]["last"]["played"]
    assert texts[3].startswith(f"reveal: p0 {played[0]}, p1 {played[1]}, p2 {played[2]};")


def test_games_in_several_tabs_stay_separate(client):
    one = new_game(client, "bestiarium", {"board_size": 5}, ["human", "random"])
    two = new_game(client, "bestiarium", {"board_size": 5}, ["human", "random"])
    assert one["id"] != two["id"]
    client.post(f"/api/games/{one['id']}/move", json={"seat": 0, "action": one["moves"][0]["id"]}, headers=auth(one, 0))
    client.post(f"/api/games/{one['id']}/step", params={"seat": 0}, headers=auth(one, 0))
    assert client.get(f"/api/games/{one['id']}", headers=auth(one, 0)).json()["ply"] == 2
    assert client.get(f"/api/games/{two['id']}", headers=auth(two, 0)).json() == {
        k: v for k, v in two.items() if k != "tokens"
    }
    # one game's token opens no other game
    assert client.get(f"/api/games/{two['id']}", headers=auth(one, 0)).status_code == 403


def test_a_failing_policy_stops_its_game_with_a_message_and_the_server_goes_on(client):
    for spec, words in (("crash", "failed: RuntimeError: this policy always fails"), ("illegal", "illegal move")):
        p = new_game(client, "bestiarium", {"board_size": 5}, [spec, "human"])
        assert p["status"] == "other_human" or p["status"] == "bot"
        client.headers.update(auth(p, 1))
        r = client.post(f"/api/games/{p['id']}/step")
        assert r.status_code == 200
        halted = r.json()
        assert halted["status"] == "halted" and words in halted["error"] and halted["ply"] == 0
        assert client.post(f"/api/games/{p['id']}/step").status_code == 409
        assert client.post(f"/api/games/{p['id']}/move", json={"seat": 1, "action": 0}).status_code == 409
    # the server still plays other games
    ok = new_game(client, "bestiarium", {"board_size": 5}, ["random", "random"])
    assert client.post(f"/api/games/{ok['id']}/step").json()["ply"] == 1


def test_games_expire_after_the_ttl_and_the_store_is_bounded():
    now = [0.0]
    store = SessionStore(ttl=60, max_items=3, clock=lambda: now[0])
    app = create_app(store)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        start = new_game(client, "beasty_borders", {}, ["human", "random"])
        gid = start["id"]
        client.headers.update(auth(start, 0))
        now[0] = 59.0
        assert client.get(f"/api/games/{gid}").status_code == 200  # touched: its clock restarts
        now[0] = 118.0
        assert client.get(f"/api/games/{gid}").status_code == 200
        now[0] = 179.0
        r = client.get(f"/api/games/{gid}")
        assert r.status_code == 404 and "expired" in r.json()["error"]
        assert len(store) == 0
        ids = [new_game(client, "beasty_borders", {}, ["random", "random"])["id"] for _ in range(4)]
        assert len(store) == 3 and client.get(f"/api/games/{ids[0]}").status_code == 404
        assert all(client.get(f"/api/games/{i}").status_code == 200 for i in ids[1:])
        assert client.post(f"/api/games/{ids[1]}/close").status_code == 200
        assert client.get(f"/api/games/{ids[1]}").status_code == 404


def test_replay_a_record_file_forwards_and_backwards(client, tmp_path):
    records = [play_game("boaring", {"num_players": 2}, ["random", "greedy"], seed=s) for s in (1, 2)]
    data = [record_to_json(r) for r in records]
    r = client.post("/api/replays", params={"name": "two.json"}, content=json.dumps(data))
    assert r.status_code == 201
    summary = r.json()
    assert [g["plies"] for g in summary["games"]] == [len(rec.actions) for rec in records]
    rid = summary["id"]
    plies = len(records[1].actions)
    first = client.get(f"/api/replays/{rid}/1/0").json()
    assert first["ply"] == 0 and first["log"] == [] and first["viewer"] is None and first["result"] is None
    third = client.get(f"/api/replays/{rid}/1/3").json()
    assert len([e for e in third["log"] if e["ply"] is not None]) == 3
    assert client.get(f"/api/replays/{rid}/1/0").json() == first  # backwards gives the same position again
    last = client.get(f"/api/replays/{rid}/1/{plies}").json()
    assert last["status"] == "over" and last["result"]["returns"] == records[1].returns
    assert client.get(f"/api/replays/{rid}/1/{plies + 1}").status_code == 404
    assert client.get(f"/api/replays/{rid}/2/0").status_code == 404
    assert client.get(f"/api/replays/{rid}/x/0").status_code == 400
    # damaged files
    assert client.post("/api/replays", content=b"[]").status_code == 400
    assert client.post("/api/replays", content=json.dumps({"game": "boaring"})).status_code == 400
    bad = dict(data[0], actions=[0, 0, 0, 99])
    rid = client.post("/api/replays", content=json.dumps(bad)).json()["id"]
    r = client.get(f"/api/replays/{rid}/0/0")
    assert r.status_code == 400 and "does not replay" in r.json()["error"]


def test_tournament_file_gives_table_and_heat_map(client, tmp_path):
    result = run_tournament("beasty_borders", {}, ["random", "greedy"], games=4, seed=1, workers=1, progress=False)
    json_path, _ = save_result(result, tmp_path)
    r = client.post("/api/tournaments", content=json_path.read_bytes())
    assert r.status_code == 200
    body = r.json()
    assert body["policies"] == ["random", "greedy"] and len(body["pairs"]) == 1
    share = result.pairs[0].win_share
    assert body["matrix"] == [[None, share], [1 - share, None]]
    r = client.post("/api/tournaments", content=json.dumps({"game": "x"}))
    assert r.status_code == 400 and "tournament" in r.json()["error"]


def test_catalogue_lists_games_policies_and_shipped_checkpoints(client):
    body = client.get("/api/catalogue").json()
    assert [g["game"] for g in body["games"]] == list(envs.GAMES)
    for g in body["games"]:
        assert {"random", "greedy", "search"} <= set(g["policies"])
        shipped = f"checkpoints/{g['game']}/policy.pt"
        if (ROOT / shipped).exists():  # a game may ship no checkpoint (the example game)
            assert shipped in [c["path"] for c in g["checkpoints"]]
    assert any(g["checkpoints"] for g in body["games"])
    assert [g["drawing"] for g in body["games"]] == [
        view_for(g).drawing for g in envs.GAMES
    ]  # each game's board drawing, or None: the generic one


def test_serve_listens_on_loopback_by_default(monkeypatch):
    import uvicorn

    from training.play.web import serve

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, **kw: seen.update(host=host, port=port))
    serve.main([])
    assert seen == {"host": "127.0.0.1", "port": 8000}


def test_every_static_file_ships_as_package_data():
    """pyproject.toml's package-data globs cover every file the page loads (a wheel install has no source tree)."""
    import fnmatch
    import tomllib
    from pathlib import Path

    import training.play.web

    root = Path(training.play.web.__file__).parent
    globs = tomllib.loads((root.parents[2] / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    files = [p.relative_to(root).as_posix() for p in (root / "static").rglob("*") if p.is_file()]
    assert len(files) >= 9
    for name in files:
        assert any(fnmatch.fnmatch(name, g) and name.count("/") == g.count("/") for g in globs["training.play.web"]), (
            name
        )
