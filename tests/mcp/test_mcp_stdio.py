"""``barnyard mcp`` on stdio, through the SDK's own ``ClientSession`` against a ``python -m training mcp`` subprocess:
every registered game played to the end, the refusals (each changing nothing), and a request over the size limit."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("mcp", reason='the llm extra: pip install -e ".[llm]"')

from mcp_clients import Refused, play_out, stdio_client  # noqa: E402

import envs  # noqa: E402

pytestmark = pytest.mark.xdist_group("machine")  # a server subprocess: one worker runs these

TOOLS = {
    "catalog": set(),
    "new_game": {"game", "options", "seat", "mcp_seats", "opponents", "seed"},
    "view": {"game_id", "token", "format"},
    "legal_moves": {"game_id", "token"},
    "play_move": {"game_id", "token", "move", "format"},
    "resign": {"game_id", "token"},
    "result": {"game_id", "token"},
    "list_games": set(),
}


@pytest.fixture(scope="module")
def client():
    with stdio_client() as client:
        yield client


def small_options(game: str) -> dict:
    """The options the browser tests start ``game`` with (small boards)."""
    return dict(envs.game_info(game).web_test_options)


def test_the_tools_and_their_arguments(client):
    tools = {t.name: t for t in client.tools()}
    assert {name: set(t.input_schema["properties"]) for name, t in tools.items()} == TOOLS
    assert all(t.description for t in tools.values())
    catalog = client.call("catalog")
    assert [g["game"] for g in catalog["games"]] == list(envs.GAMES)
    assert catalog["limits"]["max_request_bytes"] == 64 * 1024


@pytest.mark.parametrize("game", list(envs.GAMES))
def test_every_game_plays_to_the_end(client, game):
    n = envs.make_game(game, **small_options(game)).num_players
    seat = n - 1  # the last seat: the opponents before it have moved when new_game returns
    opponents = ["greedy", "random", "random"][: n - 1]
    made = client.call("new_game", game=game, options=small_options(game), seat=seat, opponents=opponents, seed=7)
    assert made["your_seat"] == seat and [p["player"] for p in made["seats"]][seat] == "mcp"
    assert "seed" not in json.dumps(made)
    view = client.call("view", game_id=made["game_id"], token=made["token"])
    assert view["view"]["seat"] == seat and view["text"].startswith("You are playing")
    assert "seed" not in view["view"] and "seed" not in view["text"]
    result = play_out(client, made["game_id"], made["token"], random.Random(game))
    assert result["over"] and result["status"] == "over"
    ended = result["result"]
    assert ended["seed"] == 7 and ended["resigned"] is None and len(ended["returns"]) == n
    assert client.refused("play_move", game_id=made["game_id"], token=made["token"], move=1).endswith(
        "the game is over: call result"
    )


def test_refusals_are_clear_and_change_nothing(client):
    made = client.call("new_game", game="boaring", options={"num_players": 3}, opponents=["greedy", "random"], seed=1)
    game_id, token = made["game_id"], made["token"]
    before = client.call("view", game_id=game_id, token=token)
    listed = before["view"]["legal_moves"]
    held = {m["notation"] for m in listed}
    missing = next(f"play {v}" for v in range(1, 11) if f"play {v}" not in held)
    refusals = {
        "bad token": client.refused("view", game_id=game_id, token="not-a-token"),
        "another game's token": client.refused(
            "view", game_id=game_id, token=client.call("new_game", game="pig", seed=2)["token"]
        ),
        "unknown game": client.refused("view", game_id="nope", token=token),
        "illegal move": client.refused("play_move", game_id=game_id, token=token, move=missing),
        "number past the list": client.refused("play_move", game_id=game_id, token=token, move=len(listed) + 1),
        "garbage": client.refused("play_move", game_id=game_id, token=token, move="take the lion and run"),
        "json without a move": client.refused("play_move", game_id=game_id, token=token, move={"card": 3}),
    }
    assert "bad token" in refusals["bad token"] and "bad token" in refusals["another game's token"]
    assert "unknown" in refusals["unknown game"]
    assert "move refused" in refusals["illegal move"] and missing in refusals["illegal move"]
    assert f"move {len(listed) + 1} is not one of the {len(listed)} listed" in refusals["number past the list"]
    assert '"move" field' in refusals["json without a move"]
    after = client.call("view", game_id=game_id, token=token)
    assert after == before  # nothing changed
    new_game_refusals = {
        "unknown game": ({"game": "chess"}, "unknown game 'chess'"),
        "bad option": ({"game": "boaring", "options": {"num_players": 11}}, "bad options for boaring"),
        "unknown option": ({"game": "pig", "options": {"colour": "red"}}, "bad options for pig"),
        "seat past the table": ({"game": "pig", "seat": 2}, "seat must be a seat number from 0 to 1"),
        "seat and mcp_seats": ({"game": "pig", "seat": 0, "mcp_seats": 2}, "not both"),
        "too many mcp seats": ({"game": "pig", "mcp_seats": 3}, "mcp_seats must be from 1 to 2"),
        "opponents miscounted": ({"game": "pig", "opponents": ["greedy", "random"]}, "a list of 1"),
        "too expensive": ({"game": "pig", "opponents": ["search:999999"]}, "10,000"),
        "unknown policy": ({"game": "pig", "opponents": ["alphago"]}, "unknown policy 'alphago'"),
        "a file outside the folders": ({"game": "pig", "opponents": ["/etc/passwd"]}, "unknown policy"),
        "a human seat": ({"game": "pig", "opponents": ["human"]}, "list it in mcp_seats"),
        "a seed out of range": ({"game": "pig", "seed": -1}, "seed must be a whole number"),
    }
    games_before = client.call("list_games")["games"]
    for what, (args, message) in new_game_refusals.items():
        text = client.refused("new_game", **args)
        assert message in text, (what, text)
    assert client.call("list_games")["games"] == games_before  # no game was made


def test_a_resignation_ends_the_game_for_every_seat(client):
    made = client.call("new_game", game="boaring", options={"num_players": 3}, mcp_seats=2, opponents="random")
    tokens = {s["seat"]: s["token"] for s in made["mcp_seats"]}
    assert sorted(tokens) == [0, 1] and tokens[0] != tokens[1] and "token" not in made
    resigned = client.call("resign", game_id=made["game_id"], token=tokens[1])
    assert resigned["status"] == "over"
    ended = client.call("result", game_id=made["game_id"], token=tokens[0])["result"]
    assert ended["resigned"] == 1 and ended["returns"] == [0.5, -1.0, 0.5] and ended["winners"] == [0, 2]
    assert isinstance(ended["seed"], int)  # shown once the game is over
    assert "already over" in client.refused("resign", game_id=made["game_id"], token=tokens[0])


def test_a_request_over_the_size_limit_is_refused_unread(client):
    from mcp.shared.exceptions import MCPError

    made = client.call("new_game", game="pig", seed=3)
    before = client.call("view", game_id=made["game_id"], token=made["token"])
    with pytest.raises(MCPError, match="over 65536 bytes"):
        client.call("play_move", game_id=made["game_id"], token=made["token"], move="1" + " " * 70_000)
    assert client.call("view", game_id=made["game_id"], token=made["token"]) == before  # and the server goes on


def test_too_many_games_are_refused_and_finished_ones_make_room():
    with stdio_client("--max-games", "2") as client:
        first = client.call("new_game", game="pig")
        client.call("new_game", game="pig")
        assert "too many games" in client.refused("new_game", game="pig")
        assert len(client.call("list_games")["games"]) == 2
        client.call("resign", game_id=first["game_id"], token=first["token"])
        assert "bad options" in client.refused("new_game", game="pig", options={"target": 0})
        assert client.call("result", game_id=first["game_id"], token=first["token"])["over"]  # still kept
        client.call("new_game", game="pig")  # the finished game made room
        assert "dropped to make room" in client.refused("view", game_id=first["game_id"], token=first["token"])
        with pytest.raises(Refused):
            client.call("new_game", game="pig")
