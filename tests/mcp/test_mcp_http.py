"""``barnyard mcp --http``: streamable HTTP on 127.0.0.1 only, through the SDK's own ``ClientSession``: a whole game,
two clients each holding one seat of the same game and playing at once, the size limit, foreign hosts and
origins, and the refusal of an address other machines can reach."""

from __future__ import annotations

import random
import threading
import time

import pytest

pytest.importorskip("mcp", reason='the llm extra: pip install -e ".[llm]"')

from mcp_clients import beyond_loopback, http_client, http_server, listening, play_out  # noqa: E402

pytestmark = pytest.mark.xdist_group("machine")  # a server subprocess: one worker runs these


@pytest.fixture(scope="module")
def server():
    with http_server() as (process, url):
        yield process, url


def test_it_listens_on_loopback_only(server):
    process, url = server
    addresses = listening(process.pid)
    assert addresses == [url.removeprefix("http://").removesuffix("/mcp")]
    assert beyond_loopback(addresses) == []


def test_a_whole_game_over_http(server):
    with http_client(server[1]) as client:
        made = client.call("new_game", game="battle_sheep", options={"num_players": 2}, opponents="greedy", seed=5)
        ended = play_out(client, made["game_id"], made["token"], random.Random(5))["result"]
        assert ended["seed"] == 5 and len(ended["returns"]) == 2


def test_two_clients_play_their_own_seats_of_one_game_at_once(server):
    """Two MCP sessions, each with one seat's token of a 3-player Boaring game (a random policy at the third),
    each in its own thread, move whenever their seat may (bids in either order): the game ends, and each client
    only ever got its own seat's view."""
    url = server[1]
    with http_client(url) as creator:
        made = creator.call("new_game", game="boaring", options={"num_players": 3}, mcp_seats=2, opponents="random")
    tokens = {s["seat"]: s["token"] for s in made["mcp_seats"]}
    seen: dict[int, list[dict]] = {0: [], 1: []}
    errors: list[BaseException] = []

    def play(seat: int) -> None:
        rng = random.Random(seat)
        try:
            with http_client(url) as client:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    report = client.call("view", game_id=made["game_id"], token=tokens[seat], format="json")
                    seen[seat].append(report)
                    if report["status"] == "over":
                        return
                    if report["status"] == "your_turn":
                        move = rng.choice(report["view"]["legal_moves"])
                        client.call("play_move", game_id=made["game_id"], token=tokens[seat], move=move["number"])
                    else:
                        time.sleep(0.005)
                raise AssertionError(f"seat {seat}: the game did not end within 60 s")
        except BaseException as err:  # noqa: BLE001 - reported by the test's thread
            errors.append(err)

    threads = [threading.Thread(target=play, args=(s,)) for s in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=90)
    assert not errors, errors
    for seat in (0, 1):
        assert seen[seat][-1]["status"] == "over"
        assert {r["seat"] for r in seen[seat]} == {seat}
        hands = {str(r["view"]["board"]["players"][1 - seat]["hand"]) for r in seen[seat] if r["status"] != "over"}
        assert hands == {"None"}  # the other seat's hand was never in a view while the game was live
        assert tokens[1 - seat] not in str(seen[seat])


def test_oversize_requests_foreign_hosts_and_origins_are_refused(server):
    import httpx2
    from mcp.shared.exceptions import MCPError

    url = server[1]
    with http_client(url) as client:
        made = client.call("new_game", game="boaring", options={"num_players": 2}, seed=1)
        before = client.call("view", game_id=made["game_id"], token=made["token"])
        with pytest.raises(MCPError):
            client.call("play_move", game_id=made["game_id"], token=made["token"], move="1" + " " * 70_000)
        assert client.call("view", game_id=made["game_id"], token=made["token"]) == before
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    big = httpx2.post(url, headers=headers, content=b" " * 70_000 + ping)
    assert big.status_code == 413
    rebound = httpx2.post(url, headers={**headers, "host": "evil.example"}, content=ping)
    assert rebound.status_code == 421  # DNS rebinding: a page elsewhere naming its own host
    foreign = httpx2.post(url, headers={**headers, "origin": "http://evil.example"}, content=ping)
    assert foreign.status_code == 403


def test_an_address_other_machines_reach_needs_allow_remote(capsys):
    from training.cli import main as barnyard

    for argv in (["mcp", "--http", "--host", "0.0.0.0"], ["mcp", "--http", "--host", "192.168.1.7"]):
        with pytest.raises(SystemExit) as done:
            barnyard(argv)
        assert done.value.code == 2
        assert "--allow-remote" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        barnyard(["mcp", "--port", "9000"])  # HTTP options without --http
    assert done.value.code == 2 and "go with --http" in capsys.readouterr().err
