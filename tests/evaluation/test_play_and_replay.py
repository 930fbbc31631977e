"""Terminal play (scripted keyboard), game records and exact replays, GIF export."""

import json

import pytest

from training.arena.records import RecordError, load_records, replay, save_records, write_gif
from training.arena.tournament import run_tournament
from training.play.terminal import play


def keyboard(lines):
    """A fake ``input`` that types the given lines, then 'pass' forever."""
    it = iter(lines)
    return lambda prompt="": next(it, "pass")


def test_human_game_survives_typos_and_illegal_moves_and_replays_exactly(tmp_path):
    out = []
    record = play(
        "beasty_borders",
        {},
        ["human", "random"],
        seed=3,
        read=keyboard(["help", "dragon", "Z", "", "pass"]),
        write=out.append,
    )
    text = "\n".join(out)
    assert "legal moves: A, B, C, pass" in text
    assert "not understood: 'dragon'" in text
    assert "not understood: 'Z'" in text  # the other player's animal type
    assert record is not None and record.returns and len(record.actions) >= 42
    path = save_records([record], tmp_path / "game.json")
    loaded = load_records(path)[0]
    *_, (game, final, _) = replay(loaded)
    assert [float(x) for x in game.returns(final)] == record.returns
    frames = write_gif(loaded, tmp_path / "game.gif", frame_ms=50)
    assert frames == len(record.actions) + 1
    assert (tmp_path / "game.gif").read_bytes()[:6] == b"GIF89a"


def test_a_legal_looking_but_illegal_move_is_refused_and_quitting_abandons_the_game():
    out = []
    assert (
        play("battle_sheep", {}, ["human", "random"], seed=0, read=keyboard(["T 5,0/0", "quit"]), write=out.append)
        is None
    )
    assert "illegal here: 'T 5,0/0'" in "\n".join(out)  # the first tile must cover the centre
    assert out[-1] == "game abandoned"


def test_tournament_games_replay_to_the_same_results(tmp_path):
    result = run_tournament("battle_sheep", {"num_players": 3}, ["random", "greedy"], games=3, seed=5, progress=False)
    path = save_records(result.records, tmp_path / "games.json")
    for original, loaded in zip(result.records, load_records(path)):
        *_, (game, final, _) = replay(loaded)
        assert [float(x) for x in game.returns(final)] == original.returns


def test_damaged_or_foreign_records_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RecordError, match="cannot read"):
        load_records(bad)
    bad.write_text(json.dumps({"hello": 1}))
    with pytest.raises(RecordError, match="not a Barnyard game record"):
        load_records(bad)
    record = play("beasty_borders", {}, ["random", "random"], seed=1, write=lambda s: None)
    data = save_records([record], tmp_path / "ok.json")
    loaded = load_records(data)[0]
    loaded["actions"][0] = 10**6
    with pytest.raises(RecordError, match="does not replay"):
        list(replay(loaded))


def _screen_until_first_prompt(monkeypatch, laid_aside: bool) -> tuple[list[str], str]:
    """What the play tool shows a human at seat 1 of a 2-player Boaring game against greedy until the human is
    asked for a bid. ``laid_aside`` swaps one card of player_0's hand with the top card of the food pile (both
    hidden from seat 1), so the two games differ only in player_0's hidden cards."""
    from envs.boaring.rules import BoaringGame

    original = BoaringGame.initial_state

    def initial_state(self, rng):
        state = original(self, rng)
        if laid_aside:
            held = max(v for v in range(10) if state.hands[0][v])  # its highest card...
            top = state.food_pile[-1]  # ...for the hidden top card of the pile (a different value)
            assert top != held + 1
            state.hands[0][held] -= 1
            state.hands[0][top - 1] += 1
            state.food_pile[-1] = held + 1
        return state

    monkeypatch.setattr(BoaringGame, "initial_state", initial_state)
    out: list[str] = []
    first_prompt: list[int] = []

    def read(prompt=""):
        first_prompt.append(len(out))
        return "quit"

    assert play("boaring", {"num_players": 2}, ["greedy", "human"], seed=3, read=read, write=out.append) is None
    return out[: first_prompt[0]], "\n".join(out)


def test_a_human_at_boaring_sees_no_hidden_bid_or_hand_before_bidding(monkeypatch):
    """The issue's session: player_0 (greedy) bids first; the human at seat 1 must not learn its card or hand
    before bidding. The screen up to the human's prompt is the same whatever player_0 holds, says only that a
    card was laid face down, and shows player_0's hand and bid as hidden."""
    screen, _ = _screen_until_first_prompt(monkeypatch, laid_aside=False)
    other, _ = _screen_until_first_prompt(monkeypatch, laid_aside=True)
    assert screen == other
    text = "\n".join(screen)
    assert "player_0 (greedy): lays a food card face down" in text
    assert "player_0 (greedy): play" not in text
    assert "player_1's view" in text and "spectator" not in text
    assert " p0 [??]" in text and "hand(9): ?" in text


def test_boaring_bids_are_shown_to_a_human_when_revealed_and_bots_are_watched_as_spectators():
    out = []
    play(
        "boaring", {"num_players": 2}, ["greedy", "human"], seed=3, read=keyboard(["play 10", "quit"]), write=out.append
    )
    text = "\n".join(out)
    assert "player_1 (human): play 10" in text
    reveal = [line for line in out if "last reveal p0:" in line]
    assert reveal and "p1:10" in reveal[0]  # both cards shown together once the last one is in
    assert text.index("player_1 (human): play 10") < text.index("last reveal")
    watched = []
    play("boaring", {"num_players": 3}, ["greedy", "greedy", "random"], seed=1, write=watched.append)
    assert watched[0].startswith("spectator view: every hand")
    assert any(line.startswith("player_1 (greedy): play ") for line in watched)  # spectators see every bid
