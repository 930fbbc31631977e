"""No MCP seat sees another seat's hand or bid before the reveal: a whole 4-player Boaring game with 4 MCP seats
through ``python -m training mcp`` (the SDK's ``ClientSession`` on stdio), checked by the two-games comparison.

Game A is played to the end. Games B are dealt from the same seed and follow A move for move, each until one
round (its *fork*), where one seat lays another card face down than in A. From then until the reveal, every other
seat's answers in A and B (the view as JSON and text, its log, its legal moves, the answers to its own moves) are
the same byte for byte; at the reveal they differ (the check can see a difference). Before its fork each B gets
the same answers as A (the same seed and moves make the same game).

Bids go in from the last seat in the engine's order to the first, so three of the four are *held* (sent before the
engine reaches the seat) and the fork's seat is the first to choose: its card, and the hand it leaves, are hidden
for three moves of the others.
"""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("mcp", reason='the llm extra: pip install -e ".[llm]"')

from mcp_clients import McpClient, in_process, stdio_client  # noqa: E402

pytestmark = pytest.mark.xdist_group("machine")  # a server subprocess: one worker runs these

SEED = 11
FORKS = (0, 1, 6)
"""The rounds (counted from 0) at which a game B lays another card than A: the first seat to choose does (rounds
with different active seats, so different seats)."""


def same(answer: dict) -> str:
    """An answer as bytes to compare between two games: everything but the game's id."""
    return json.dumps({k: v for k, v in answer.items() if k != "game_id"}, sort_keys=True)


class Table:
    """One game with 4 MCP seats, as the client holding the 4 tokens sees it."""

    def __init__(self, client: McpClient):
        self.client = client
        made = client.call("new_game", game="boaring", options={"num_players": 4}, mcp_seats=4, seed=SEED)
        assert made["seats"] == [{"seat": s, "name": f"p{s}", "player": "mcp"} for s in range(4)]
        self.id = made["game_id"]
        self.tokens = {s["seat"]: s["token"] for s in made["mcp_seats"]}
        assert len(set(self.tokens.values())) == 4

    def call(self, tool: str, seat: int, **args) -> dict:
        return self.client.call(tool, game_id=self.id, token=self.tokens[seat], **args)

    def everything(self, seat: int) -> str:
        """All that ``seat`` is shown now: its view as JSON (its legal moves included) and text, and its log."""
        return same(self.call("view", seat))


def test_four_mcp_seats_see_no_other_hand_or_bid_before_the_reveal():
    rng = random.Random(3)
    with stdio_client() as client:
        a = Table(client)
        forks = {r: Table(client) for r in FORKS}
        view = a.call("view", 0, format="json")["view"]
        held: set[int] = set()
        checked = dict.fromkeys(FORKS, 0)
        watching: dict[int, tuple[Table, int]] = {}  # fork round -> (its game B, the seat that laid another card)
        while not view["terminal"]:
            board = view["board"]
            rounds, bid = board["rounds"], view["phase"] == "bid"
            # who moves: in a bid, the last seat in the engine's order not yet in; else the one to move
            seat = [s for s in view["to_move"] if s not in held][-1] if bid else view["to_move"][0]
            listed = a.call("legal_moves", seat)
            assert listed["status"] == "your_turn"
            move = rng.choice(listed["moves"])["notation"]
            first = bid and not held and len(listed["moves"]) > 1  # the round's first card, with a choice
            forking = {r for r in forks if first and r not in watching and rounds >= r}
            answer = a.call("play_move", seat, move=move)
            for r, b in list(forks.items()):
                if r in forking:  # B lays another card
                    other = rng.choice([m["notation"] for m in listed["moves"] if m["notation"] != move])
                    b.call("play_move", seat, move=other)
                    watching[r] = (b, seat)
                elif r not in watching:
                    assert same(b.call("play_move", seat, move=move)) == same(answer)
                else:
                    b.call("play_move", seat, move=move)
            if bid:
                held.add(seat)
            view = answer["view"]
            revealed = view["board"]["rounds"] != rounds or view["phase"] != "bid" or view["terminal"]
            if revealed:
                held.clear()
            elif bid:  # held until the engine reaches the seat: face down, shown to its own seat only
                assert answer["status"] == "submitted" and answer["submitted"] == move, answer
                assert f"You have chosen {move} (face down)" in answer["text"]
                assert answer["view"]["legal_moves"] == [] and not answer["view"]["your_turn"]
            for r, (b, forked) in list(watching.items()):
                others = [s for s in range(4) if s != forked]
                seen_a = [a.everything(s) for s in others]
                seen_b = [b.everything(s) for s in others]
                if not revealed:
                    assert seen_a == seen_b, f"round {r}: a seat saw player {forked}'s hidden card or hand"
                    checked[r] += 1
                else:
                    assert seen_a != seen_b  # the reveal shows the other card: the comparison can see it
                    b.call("resign", 0)
                    del forks[r], watching[r]
        assert view["result"]["seed"] == SEED and len(view["result"]["returns"]) == 4
        assert checked == dict.fromkeys(FORKS, 3), checked  # three moves of the others under each fork's card
        assert not forks


def test_another_seats_dealt_hand_is_in_no_answer():
    """Two games dealt alike but for the hands of seats 2 and 3, swapped: seats 0 and 1 get the same answers at
    every step of the first round until the reveal (seat 0's card, the last in; in-process server, the SDK's
    ``Client``)."""
    from training.play.mcp_games import GameTable
    from training.play.mcp_server import create_server

    def swapped(game, rng):
        state = game.initial_state(rng)
        state.hands[2], state.hands[3] = state.hands[3], state.hands[2]
        return state

    seen: list[list[str]] = []
    for deal in (None, swapped):
        with in_process(create_server(GameTable(), deal=deal)) as client:
            table = Table(client)
            hands = [table.call("view", s, format="json")["view"]["board"]["players"][s]["hand"] for s in (2, 3)]
            assert hands[0] != hands[1]
            steps = [table.everything(0) + table.everything(1)]
            for seat in (3, 2, 1):  # held, held, held: the reveal comes with seat 0's card
                move = table.call("legal_moves", seat)["moves"][0]["number"]
                answer = table.call("play_move", seat, move=move)
                assert answer["status"] == "submitted"
                steps.append(table.everything(0) + table.everything(1))
            seen.append(steps)
    assert seen[0] == seen[1]
