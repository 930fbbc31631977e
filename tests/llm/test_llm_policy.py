"""The ``llm:`` policy end to end, without a network: a scripted model behind a local OpenAI-compatible server
(``tests/llm/scripted_model.py``, on 127.0.0.1) takes seats in tournaments of every game, a rating, ``play``, the
web app and its replay page. What is checked: every game is played to its end; the illegal-move rule (refused
replies retried with the refusal as feedback, failed requests counted, then the fallback) and its counts, which
match what the scripted model was asked and answered; transcripts in the records, replayable on the page; the same
seed gives the same records; a seat's prompts do not depend on what it may not know; the key never reaches a
record; a bad spec and a server that is down fail clearly."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import envs
from envs.boaring.rules import BoaringGame
from envs.common.game import TERMINAL
from envs.common.policies import decision_from_state
from envs.common.seat_view import seat_text
from tests.boaring.test_boaring_info import decision_states
from tests.llm.scripted_model import free_port, scripted_reply, serve_scripted
from training.arena.harness import Forfeit, forfeit_returns
from training.arena.llm import SYSTEM_PROMPT, LLMPolicy
from training.arena.players import UnknownPolicyError, make_policy
from training.arena.records import save_records
from training.arena.tournament import GameRecord, play_game, run_tournament

pytestmark = pytest.mark.xdist_group("llm-server")  # one worker runs these: they share one local server

RETRIES = 2
TIMEOUT = 0.4
"""Long enough for any answer but the slow ones on a loaded machine (they take 10-50 ms; the slow ones 4 s)."""


@pytest.fixture(scope="module")
def server():
    """``(base URL, ScriptedModel)`` of the scripted model served on 127.0.0.1 for this module."""
    with serve_scripted(slow_seconds=4.0) as served:
        yield served


def spec(url: str, model: str = "scripted-mixed", **options: Any) -> str:
    options = {"timeout": TIMEOUT, "fallback": "random", **options}
    return f"llm:{model}@{url}," + ",".join(f"{k}={v}" for k, v in options.items())


def opponent(game: str) -> str:
    return "greedy" if "greedy" in make_policy_names(game) else "random"


def make_policy_names(game: str) -> list[str]:
    from training.arena.players import baseline_names

    return baseline_names(game)


def without_timing(record: GameRecord) -> dict[str, Any]:
    """A record as JSON, less what the clock decides (think time, each ask's latency)."""
    data = json.loads(json.dumps(record.__dict__))
    data.pop("think_seconds")
    for entry in data["transcripts"]:
        for ask in entry["attempts"]:
            ask.pop("latency_s")
    return data


def asked(model: Any, since: int) -> list[dict[str, Any]]:
    with model.lock:
        return list(model.requests[since:])


# ----- specs ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "bad, message",
    [
        ("llm:", "give a model"),
        ("llm:@http://127.0.0.1:8000/v1", "give a model"),
        ("llm:gpt-4o-mini@ftp://127.0.0.1/v1", "must start with http:// or https://"),
        ("llm:gpt-4o-mini@127.0.0.1:8000/v1", "must start with http:// or https://"),
        ("llm:gpt-4o-mini@", "give the API's base URL"),
        ("llm:gpt 4o@http://127.0.0.1:8000/v1", "is not a model name"),
        ("llm:m@http://127.0.0.1:8000/v1,colour=blue", "unknown option 'colour'"),
        ("llm:m@http://127.0.0.1:8000/v1,retries=11", "retries takes a whole number from 0 to 10"),
        ("llm:m@http://127.0.0.1:8000/v1,retries=-1", "retries takes a whole number from 0 to 10"),
        ("llm:m@http://127.0.0.1:8000/v1,timeout=0", "timeout (seconds) takes a number from 0.05 to 600"),
        ("llm:m@http://127.0.0.1:8000/v1,timeout=1e9", "timeout (seconds) takes a number from 0.05 to 600"),
        ("llm:m@http://127.0.0.1:8000/v1,timeout=nan", "timeout (seconds) takes a number"),
        ("llm:m@http://127.0.0.1:8000/v1,temperature=3", "temperature takes a number from 0 to 2"),
        ("llm:m@http://127.0.0.1:8000/v1,concurrency=0", "concurrency takes a whole number from 1 to 64"),
        ("llm:m@http://127.0.0.1:8000/v1,concurrency=" + "9" * 50, "concurrency takes a whole number from 1 to 64"),
        ("llm:m@http://127.0.0.1:8000/v1,concurrency=" + "9" * 5000, "an llm: spec has at most 300 characters"),
        ("llm:m@http://127.0.0.1:8000/v1,fallback=pass", "fallback is forfeit or random"),
        ("llm:m@http://127.0.0.1:8000/v1,retries", "option retries needs a value"),
        ("llm:m@http://127.0.0.1:8000/v1,retries=1,retries=2", "option retries is given twice"),
        ("llm:m@http://127.0.0.1:8000/v1,key=sk-abc", "never holds the key"),
        ("llm:m@http://user:sk-abc@127.0.0.1:8000/v1", "may not hold credentials"),
        ("llm:m@http://127.0.0.1:8000/v1?key=sk-abc", "may not have a query"),
        ("llm:m@http://127.0.0.1:99999/v1", "is not a URL"),
        ("llm:m@http://127.0.0.1:8000/v1,key_env=1BAD", "key_env names an environment variable"),
    ],
)
def test_a_bad_spec_is_refused_with_a_clear_error(bad, message):
    with pytest.raises(UnknownPolicyError) as err:
        make_policy(bad, "bestiarium", {}, seed=0)
    assert message in str(err.value)
    assert "sk-abc" not in str(err.value)


def test_a_hosted_model_needs_its_key_variable(monkeypatch):
    """A server elsewhere without the key's variable set is refused before any game, naming the variable; a
    server on this machine gets a placeholder key (local servers ignore it)."""
    monkeypatch.delenv("BARNYARD_NO_SUCH_KEY", raising=False)
    with pytest.raises(UnknownPolicyError, match="BARNYARD_NO_SUCH_KEY is not set"):
        make_policy("llm:gpt-4o-mini@https://api.example.com/v1,key_env=BARNYARD_NO_SUCH_KEY", "bestiarium")
    policy = make_policy("llm:m@http://127.0.0.1:8000/v1,key_env=BARNYARD_NO_SUCH_KEY", "bestiarium")
    assert isinstance(policy, LLMPolicy) and policy.settings.model == "m"


def test_evaluate_refuses_a_bad_spec_in_one_line(capsys):
    from training.arena import tournament

    with pytest.raises(SystemExit) as done:
        tournament.main(["--game", "bestiarium", "--policies", "llm:m@http://127.0.0.1:1/v1,retries=99", "greedy"])
    assert done.value.code not in (0, None)
    err = capsys.readouterr().err
    assert "retries takes a whole number from 0 to 10" in err and "Traceback" not in err


# ----- tournaments of every game ------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", envs.GAMES)
def test_a_tournament_with_an_llm_seat_plays_every_game_to_the_end(server, game):
    """A scripted model that answers legal notations, numbers, JSON, garbage, illegal numbers and sometimes too
    slowly, against a baseline: every game ends; the counts are what it was asked and answered; each transcript's
    prompt is the seat's text of that position; the table prints the counts."""
    url, model = server
    llm = spec(url, retries=RETRIES)
    since = len(model.requests)
    t0 = time.perf_counter()
    games = 2 if envs.make_game(game).num_players == 2 else 1  # with more seats: both ways round, 2 games
    result = run_tournament(game, {}, [llm, opponent(game)], games=games, seed=3, workers=1, progress=False)
    took = time.perf_counter() - t0
    requests = asked(model, since)
    rules = Counter(scripted_reply(r["model"], r["messages"], r["seed"])[0] for r in requests)
    counts = result.llm[llm]
    assert counts["asks"] == len(requests) == sum(rules.values())
    assert counts["refused"] == rules["garbage"] + rules["illegal"]
    assert counts["no_reply"] == rules["slow"]
    assert counts["forfeits"] == 0 and counts["tokens"] > 0
    engine = envs.make_game(game)
    decisions = 0
    for task_record in result.records:
        assert task_record.forfeit is None and not task_record.truncated
        mine = {i for i, name in enumerate(task_record.seats) if name == llm}
        by_ply = {t["ply"]: t for t in task_record.transcripts}
        states = list(_states_before_moves(engine, task_record))
        assert engine.current_player(states[-1][0]) == TERMINAL
        for ply, (state, action) in enumerate(states[:-1]):
            seat = engine.current_player(state)
            if seat not in mine:
                assert ply not in by_ply
                continue
            entry = by_ply[ply]
            decisions += 1
            assert entry["seat"] == seat and entry["action"] == action and entry["policy"] == llm
            assert entry["prompt"] == seat_text(engine, state, seat) and entry["system"] == SYSTEM_PROMPT
            asks = entry["attempts"]
            assert 1 <= len(asks) <= RETRIES + 1 and [a["attempt"] for a in asks] == list(range(1, len(asks) + 1))
            for a in asks[:-1]:
                assert a["move"] is None and (a["refusal"] is None) != (a["error"] is None)
            if entry["fallback"] is None:
                assert asks[-1]["move"] == engine.action_to_str(engine.information_state(state, seat), action)
            else:
                assert entry["fallback"] == "random" and len(asks) == RETRIES + 1
                assert all(a["move"] is None for a in asks)
            for a in asks:
                if a["refusal"] is not None:
                    assert a["reply"] is not None
                if a["error"] is not None:
                    assert a["reply"] is None and a["error"].startswith("timeout")
            for before, after in zip(asks, asks[1:]):  # a refusal is fed back; a missing reply is asked again
                assert (after["feedback"] is not None) == (before["refusal"] is not None)
                if before["refusal"] is not None:
                    assert before["refusal"] in after["feedback"]
    assert counts["decisions"] == decisions
    assert counts["random_fallbacks"] == sum(t["fallback"] == "random" for r in result.records for t in r.transcripts)
    table = result.markdown()
    assert "| refused | no reply | random fallbacks | forfeits |" in table
    assert f"| {llm} | {counts['decisions']} | {counts['asks']} | {counts['refused']} |" in table
    assert json.loads(json.dumps(result.to_json()))["llm"][llm] == counts
    assert took < 60


def _states_before_moves(engine, record: GameRecord):
    """``(state, action played there)`` at each ply of a record, then ``(final state, None)``."""
    rng = np.random.default_rng(record.seed)
    state = engine.initial_state(rng)
    for action in record.actions:
        yield engine.clone(state), action
        engine.apply(state, action, rng)
    yield state, None


def test_the_same_seed_gives_the_same_records_and_the_seed_is_passed_through(server):
    """The model never too slow and a generous timeout: no answer is cut by the clock, so the records are the
    same however loaded the machine."""
    url, model = server
    llm = spec(url, model="scripted-quick", retries=1, temperature=0.7, timeout=30)
    runs = []
    for _ in range(2):
        since = len(model.requests)
        result = run_tournament("bestiarium", {}, [llm, "greedy"], games=2, seed=11, workers=1, progress=False)
        runs.append(([without_timing(r) for r in result.records], result.llm, asked(model, since)))
    assert runs[0][0] == runs[1][0] and runs[0][1] == runs[1][1]
    requests = runs[0][2]
    assert {r["temperature"] for r in requests} == {0.7}
    # the seed sent is the seat's game seed (the harness's: seed * 101 + seat), the same for every ask of a game
    seeds = {r["seed"] for r in requests}
    records = runs[0][0]
    assert seeds == {rec["seed"] * 101 + rec["seats"].index(llm) for rec in records}
    other = run_tournament("bestiarium", {}, [llm, "greedy"], games=2, seed=12, workers=1, progress=False)
    assert [without_timing(r) for r in other.records] != records

    fixed = spec(url, model="scripted-first", seed=42, retries=0)
    since = len(model.requests)
    play_game("beasty_borders", {}, [fixed, "random"], seed=5)
    assert {r["seed"] for r in asked(model, since)} == {42}
    none = spec(url, model="scripted-first", seed="none", retries=0)
    since = len(model.requests)
    play_game("beasty_borders", {}, [none, "random"], seed=5)
    assert {r["seed"] for r in asked(model, since)} == {None}


def test_boaring_prompts_do_not_depend_on_other_seats_hidden_cards(server):
    """The two-games comparison at four players: at every decision of a random game, the position and the same
    position with every card the deciding seat cannot see redealt (other hands, other face-down bids, the deck)
    give the same requests to the model and the same transcript."""
    url, model = server
    game = BoaringGame(num_players=4)
    rng = np.random.default_rng(4)
    policy = make_policy(spec(url, model="scripted-mixed", retries=1), "boaring", {"num_players": 4}, seed=0)
    compared = 0
    for state in decision_states(game, seed=4, every=3):
        if game.current_player(state) == TERMINAL:
            continue
        seat = game.current_player(state)
        other = game.determinize(game.information_state(state, seat), seat, rng)
        if json.dumps(game.state_to_json(other)) == json.dumps(game.state_to_json(state)):
            continue
        seen = []
        for position in (state, other):
            policy.reset(9)
            since = len(model.requests)
            action = policy.act(decision_from_state(game, position, seat))
            entry = policy.take_transcript()
            for ask in entry["attempts"]:
                ask.pop("latency_s")
            seen.append((action, entry, [r["messages"] for r in asked(model, since)]))
        assert seen[0] == seen[1]
        compared += 1
    assert compared >= 10


def test_boaring_tournament_at_four_players_shows_each_seat_only_its_view(server):
    url, _ = server
    llm = spec(url, retries=1)
    result = run_tournament("boaring", {"num_players": 4}, [llm, "greedy"], games=1, seed=2, workers=1, progress=False)
    engine = envs.make_game("boaring", num_players=4)
    checked = 0
    for record in result.records:
        assert record.forfeit is None
        by_ply = {t["ply"]: t for t in record.transcripts}
        for ply, (state, _) in enumerate(list(_states_before_moves(engine, record))[:-1]):
            if ply in by_ply:
                seat = by_ply[ply]["seat"]
                view = engine.information_state(state, seat)
                assert by_ply[ply]["prompt"] == seat_text(engine, view, seat)
                checked += 1
    assert checked > 10


# ----- the illegal-move rule's ends -----------------------------------------------------------------------------------
def test_a_model_that_never_answers_a_move_forfeits(server):
    url, model = server
    llm = spec(url, model="scripted-garbage", retries=1, fallback="forfeit")
    result = run_tournament("beasty_borders", {}, [llm, "greedy"], games=2, seed=0, workers=1, progress=False)
    counts = result.llm[llm]
    assert counts == {
        "decisions": 2,
        "asks": 4,
        "refused": 4,
        "no_reply": 0,
        "random_fallbacks": 0,
        "forfeits": 2,
        "tokens": counts["tokens"],
    }
    pair = result.pairs[0]
    assert (pair.wins, pair.losses) == (0, 2)
    for record in result.records:
        hero = record.seats.index(llm)
        assert record.forfeit == hero and record.returns == forfeit_returns(2, hero)
        (entry,) = record.transcripts
        assert entry["fallback"] == "forfeit" and entry["ply"] == len(record.actions)
        assert entry["attempts"][1]["feedback"].startswith("Your answer was refused:")
    assert "| 2 | 4 | 4 | 0 | 0 | 2 |" in result.markdown()


def test_a_model_that_never_answers_a_move_plays_random_moves_with_fallback_random(server):
    url, _ = server
    llm = spec(url, model="scripted-illegal", retries=0, fallback="random")
    record = play_game("beasty_borders", {}, [llm, "random"], seed=1)
    assert record.forfeit is None and record.transcripts
    for entry in record.transcripts:
        assert entry["fallback"] == "random" and len(entry["attempts"]) == 1
        assert "is not one of the" in entry["attempts"][0]["refusal"]
    # the fallback's moves come from the seat's seeded generator: the same game again
    again = play_game("beasty_borders", {}, [llm, "random"], seed=1)
    assert again.actions == record.actions


def test_a_slow_model_is_cut_at_the_timeout(server):
    url, model = server
    policy = make_policy(spec(url, model="scripted-slow", retries=1, timeout=0.2), "beasty_borders", {}, seed=0)
    game = envs.make_game("beasty_borders")
    state = game.initial_state(np.random.default_rng(0))
    t0 = time.perf_counter()
    action = policy.act(decision_from_state(game, state))
    took = time.perf_counter() - t0
    assert took < 3.0  # two asks of 0.2 s, not the 4 s the model takes
    entry = policy.take_transcript()
    assert entry["fallback"] == "random" and game.legal_mask(state)[action]
    assert [a["error"] for a in entry["attempts"]] == ["timeout: no reply within 0.2 s"] * 2


def test_a_server_that_is_down_fails_each_game_by_the_fallback_rule(capsys, tmp_path):
    """Nothing listens at the URL: each decision's asks fail at once ("connection failed"), then the fallback
    decides: forfeit loses every game at the first decision, random plays random moves; no hang."""
    from training.arena import tournament

    url = f"http://127.0.0.1:{free_port()}/v1"
    llm = spec(url, model="any", retries=1, fallback="forfeit", timeout=2)
    t0 = time.perf_counter()
    tournament.main(
        ["--game", "bestiarium", "--policies", llm, "greedy", "--games", "2", "--workers", "1"]
        + ["--out", str(tmp_path), "--save-games", str(tmp_path / "games.json")]
    )
    assert time.perf_counter() - t0 < 30
    out = capsys.readouterr().out
    assert f"| {llm} | 2 | 4 | 0 | 4 | 0 | 2 | 0 |" in out
    records = json.loads((tmp_path / "games.json").read_text())
    for record in records:
        assert record["forfeit"] == record["seats"].index(llm)
        for ask in record["transcripts"][0]["attempts"]:
            assert ask["error"].startswith("connection failed") and url in ask["error"]
    saved = json.loads((tmp_path / "bestiarium_tournament.json").read_text())
    assert saved["llm"][llm]["forfeits"] == 2

    random_fallback = spec(url, model="any", retries=0, fallback="random", timeout=2)
    record = play_game("beasty_borders", {}, [random_fallback, "random"], seed=0)
    assert record.forfeit is None and all(t["fallback"] == "random" for t in record.transcripts)


def test_the_key_reaches_the_server_but_never_a_record(server, monkeypatch, tmp_path):
    url, model = server
    key = "sk-test-BARNYARD-SECRET-0123456789"
    monkeypatch.setenv("BARNYARD_TEST_KEY", key)
    since = len(model.requests)
    records = [
        play_game("beasty_borders", {}, [spec(url, key_env="BARNYARD_TEST_KEY", retries=1), "random"], seed=0),
        play_game(
            "beasty_borders",
            {},
            [spec(url, model="scripted-unauthorized", key_env="BARNYARD_TEST_KEY", retries=1), "random"],
            seed=0,
        ),
    ]
    assert {r["authorization"] for r in asked(model, since)} == {f"Bearer {key}"}
    error = records[1].transcripts[0]["attempts"][0]["error"]
    assert error.startswith("HTTP 401") and "[key]" in error
    text = save_records(records, tmp_path / "games.json").read_text()
    assert "BARNYARD-SECRET" not in text and "0123456789" not in text
    policy = make_policy(spec(url, key_env="BARNYARD_TEST_KEY"), "bestiarium")
    assert "SECRET" not in repr(policy) and "SECRET" not in repr(vars(policy).get("settings"))


def test_at_most_concurrency_requests_are_in_flight(server):
    """Four threads, one seat each, concurrency=2: the server never holds more than two of their requests."""
    import threading

    url, model = server
    game = envs.make_game("beasty_borders")
    state = game.initial_state(np.random.default_rng(0))
    policies = [
        make_policy(spec(url, model="scripted-slow", retries=0, timeout=0.6, concurrency=2), "beasty_borders")
        for _ in range(4)
    ]
    starts: list[float] = []

    def one(policy):
        policy.act(decision_from_state(game, state))
        starts.append(policy.take_transcript()["attempts"][0]["latency_s"])

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one, args=(p,)) for p in policies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.perf_counter() - t0
    assert len(starts) == 4
    assert took >= 1.1  # two rounds of two timed-out asks (0.6 s each), not one round of four


# ----- the commands: rate, play, serve and the replay page ------------------------------------------------------------
def test_rate_an_llm_seat_on_the_fixed_scale(server, capsys):
    from training.arena import rating

    url, _ = server
    llm = spec(url, model="scripted-legal")
    rating.main(["--game", "beasty_borders", "--policy", llm, "--games", "1", "--seed", "0"])
    out = capsys.readouterr().out
    assert out.startswith(f"{llm} on barnyard-beasty_borders-v")
    number = float(out.split(": ", 1)[1].split(" ", 1)[0])
    assert np.isfinite(number)
    assert "illegal-move rule: decisions " in out and "forfeits 0" in out


def test_play_seats_an_llm(server):
    from training.play.terminal import play

    url, _ = server
    lines: list[str] = []
    record = play("beasty_borders", {}, [spec(url), "random"], seed=3, write=lines.append)
    assert record is not None and record.transcripts and record.forfeit is None
    garbage = spec(url, model="scripted-garbage", retries=0, fallback="forfeit")
    record = play("beasty_borders", {}, ["random", garbage], seed=3, write=lines.append)
    assert record.forfeit == 1 and record.returns == [1.0, -1.0]
    assert any("player_1 (" in line and "forfeits" in line for line in lines)


def _client(**app_options):
    from starlette.testclient import TestClient

    from training.play.web.app import create_app

    return TestClient(create_app(**app_options), base_url="http://127.0.0.1")


def test_serve_offers_only_the_llm_seats_it_was_given(server):
    from training.play.web.serve import llm_seats

    url, _ = server
    offered = spec(url, model="scripted-mixed", retries=1, fallback="forfeit")
    client = _client(extra_policies=llm_seats([offered]))
    for bad, message in (("greedy", "give an llm:MODEL@URL spec"), ("llm:m@ftp://x/v1", "http:// or https://")):
        with pytest.raises(ValueError, match=message):
            llm_seats([bad])
    catalogue = client.get("/api/catalogue").json()
    assert offered in catalogue["games"][0]["policies"]
    other = spec(url, model="scripted-legal")
    r = client.post("/api/games", json={"game": "beasty_borders", "options": {}, "seats": [other, "random"]})
    assert r.status_code == 400 and "barnyard serve --llm" in r.json()["error"]
    body = {"game": "beasty_borders", "options": {}, "seats": [offered, "random"], "seed": 4}
    game = client.post("/api/games", json=body).json()
    for _ in range(500):
        state = client.get(f"/api/games/{game['id']}").json()
        if state["status"] == "over":
            break
        assert client.post(f"/api/games/{game['id']}/step").status_code == 200
    assert state["status"] == "over"
    (record,) = client.get(f"/api/games/{game['id']}/record").json()
    assert record["transcripts"] and all(t["policy"] == offered for t in record["transcripts"])
    if record["forfeit"] is not None:
        assert state["result"]["forfeit"] == record["forfeit"]


def test_the_replay_page_shows_each_llm_move_s_transcript(server, tmp_path):
    url, _ = server
    llm = spec(url, retries=1)
    forfeiting = spec(url, model="scripted-garbage", retries=0, fallback="forfeit")
    records = [
        play_game("beasty_borders", {}, [llm, "random"], seed=7),
        play_game("beasty_borders", {}, ["random", forfeiting], seed=7),
    ]
    records[0].transcripts[0]["attempts"][0]["reply"] = "<script>alert(1)</script> Answer: 1"
    data = json.loads(save_records(records, tmp_path / "games.json").read_text())
    client = _client()
    opened = client.post("/api/replays?name=games.json", content=json.dumps(data)).json()
    entry = data[0]["transcripts"][0]
    page = client.get(f"/api/replays/{opened['id']}/0/{entry['ply'] + 1}").json()
    (shown,) = page["transcripts"]
    assert shown["prompt"] == entry["prompt"] and shown["ply"] == entry["ply"] and shown["seat"] == entry["seat"]
    assert shown["attempts"][0]["reply"] == "<script>alert(1)</script> Answer: 1"  # text, drawn with textContent
    assert shown["attempts"][0]["tokens"] == entry["attempts"][0]["tokens"]
    first = client.get(f"/api/replays/{opened['id']}/0/0").json()
    assert first["transcripts"] == []
    plies = len(data[1]["actions"])
    end = client.get(f"/api/replays/{opened['id']}/1/{plies}").json()
    assert end["status"] == "over" and end["forfeit"] == 1 and end["result"]["winners"] == [0]
    assert [t["fallback"] for t in end["transcripts"]] == ["forfeit"]
    script = Path("training/play/web/static/js/main.js").read_text()
    drawing = script.split("function drawTranscripts")[1].split("\n}\n")[0]
    assert "innerHTML" not in drawing and "html(" in drawing  # svg.js's html(): text as textContent, never markup
    bad = dict(data[0], transcripts=5)
    r = client.post("/api/replays?name=bad.json", content=json.dumps([bad]))
    assert r.status_code == 400 and "'transcripts' must be a list" in r.json()["error"]


def test_no_key_in_the_environment_is_needed_for_a_local_server(server, monkeypatch):
    url, model = server
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    since = len(model.requests)
    play_game("beasty_borders", {}, [spec(url, model="scripted-first", retries=0), "random"], seed=0)
    assert {r["authorization"] for r in asked(model, since)} == {"Bearer not-needed"}
    assert os.environ.get("OPENAI_API_KEY") is None


def test_forfeit_is_a_policy_signal_the_harness_honours():
    class Quitter:
        name = "quitter"

        def reset(self, seed=None):
            pass

        def act(self, decision):
            raise Forfeit(decision.seat, "no thanks")

    from envs.common.policies import RandomPolicy

    record = play_game(
        "boaring", {"num_players": 3}, ["random", "quitter", "random"], 0, [RandomPolicy(0), Quitter(), RandomPolicy(1)]
    )
    assert record.forfeit == 1 and record.returns == [0.5, -1.0, 0.5] and record.transcripts == []
