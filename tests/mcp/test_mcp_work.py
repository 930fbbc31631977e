"""The server's bounds in-process (the SDK's ``Client`` against ``create_server``, no subprocess): an opponent that
thinks for ever stalls no other call, a failing opponent stops only its game, and idle games expire."""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytest.importorskip("mcp", reason='the llm extra: pip install -e ".[llm]"')

from mcp_clients import in_process  # noqa: E402

import training.play.mcp_games as mcp_games  # noqa: E402
from training.play.mcp_games import GameTable, Limits, Refusal, SeatGame  # noqa: E402
from training.play.mcp_server import create_server, loopback  # noqa: E402


class Blocker:
    """An opponent that thinks until the test lets it go (then plays its first legal move), or fails."""

    name = "blocker"

    def __init__(self, fail: bool = False):
        self.fail = fail
        self.started = threading.Event()
        self.go = threading.Event()

    def reset(self, seed=None):
        pass

    def act(self, decision):
        if self.fail:
            raise RuntimeError("this opponent always fails")
        self.started.set()
        assert self.go.wait(30)
        return int(np.flatnonzero(decision.action_mask)[0])


@pytest.fixture
def blocker(monkeypatch):
    """``blocker`` and ``crash`` as opponent specs of this test."""
    made = {"blocker": Blocker(), "crash": Blocker(fail=True)}
    check_spec, make_policy = mcp_games.check_spec, mcp_games.make_policy
    monkeypatch.setattr(mcp_games, "check_spec", lambda spec, *a: None if spec in made else check_spec(spec, *a))
    monkeypatch.setattr(mcp_games, "make_policy", lambda spec, *a: made.get(spec) or make_policy(spec, *a))
    yield made["blocker"]
    made["blocker"].go.set()


def test_an_opponent_thinking_stalls_no_other_call(blocker):
    with in_process(create_server(GameTable())) as client:
        slow = client.call("new_game", game="boaring", options={"num_players": 2}, opponents="blocker", seed=1)
        args = {"game_id": slow["game_id"], "token": slow["token"]}
        pending = client.portal.start_task_soon(lambda: client.session.call_tool("play_move", {**args, "move": 1}))
        try:
            assert blocker.started.wait(10)
            # while it thinks: its own game's view, other games made and played, the list
            assert client.call("view", **args)["status"] == "waiting"
            assert "not your turn" in client.refused("play_move", **args, move=1)
            other = client.call("new_game", game="boaring", options={"num_players": 2}, opponents="greedy", seed=2)
            played = client.call("play_move", game_id=other["game_id"], token=other["token"], move=1)
            assert played["status"] == "your_turn" and played["ply"] == 3  # both cards, then the policy's of round 2
            assert len(client.call("list_games")["games"]) == 2
            assert not pending.done()
        finally:
            blocker.go.set()
        answer = pending.result(timeout=30)
        assert not answer.is_error and answer.structured_content["status"] == "your_turn"


def test_a_failing_opponent_stops_its_game_only(blocker):
    with in_process(create_server(GameTable())) as client:
        made = client.call("new_game", game="boaring", options={"num_players": 2}, opponents="crash")
        args = {"game_id": made["game_id"], "token": made["token"]}
        answer = client.call("play_move", **args, move=1)
        assert answer["status"] == "halted" and "always fails" in answer["error"]
        assert "was stopped" in answer["text"]
        assert "the game was stopped" in client.refused("play_move", **args, move=1)
        assert [g["status"] for g in client.call("list_games")["games"]] == ["halted"]


def test_idle_games_expire_and_the_table_says_why():
    now = [0.0]
    table = GameTable(Limits(ttl=10.0, max_games=2), clock=lambda: now[0])
    game = SeatGame("boaring", {"num_players": 2})
    table.reserve()
    key = table.add(game)
    now[0] = 9.0
    assert table.get(key) is game  # its clock restarts
    now[0] = 18.0
    assert len(table) == 1
    now[0] = 19.5
    with pytest.raises(Refusal, match="expired: no call for 10 s"):
        table.get(key)
    with pytest.raises(Refusal, match="unknown"):
        table.get("x" * 1000)
    assert len(table) == 0


def test_a_held_choice_waits_for_the_engine_and_is_in_no_other_view():
    game = SeatGame("boaring", {"num_players": 3}, mcp_seats=[0, 2], opponents="random", seed=4)
    before = game.report(0)
    action, notation = game.submit(2, "1")  # seat 2 bids before seats 0 and 1
    assert game.pending == {2: action} and game.plies == 0
    assert game.report(0) == before  # nothing of it in seat 0's answers
    assert game.report(2)["submitted"] == notation
    with pytest.raises(Refusal, match="already chosen"):
        game.submit(2, "1")
    game.submit(0, "1")  # seat 0's card is played; seat 1, the policy, comes next
    game.advance()  # seat 1 bids; then seat 2's held card: all three are revealed
    assert game.pending == {} and game.plies >= 3


def test_loopback_names():
    assert loopback("127.0.0.1") and loopback("127.0.0.2") and loopback("::1") and loopback("localhost")
    assert not loopback("0.0.0.0") and not loopback("::") and not loopback("192.168.1.7")
    assert not loopback("example.com")
