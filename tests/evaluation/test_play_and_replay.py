"""Terminal play (scripted keyboard), game records and exact replays, GIF export."""

import json

import pytest

from training.evaluate import run_tournament
from training.play import play
from training.records import RecordError, load_records, replay, save_records, write_gif


def keyboard(lines):
    """A fake ``input`` that types the given lines, then 'pass' forever."""
    it = iter(lines)
    return lambda prompt="": next(it, "pass")


def test_human_game_survives_typos_and_illegal_moves_and_replays_exactly(tmp_path):
    out = []
    record = play("beasty_borders", {}, ["human", "random"], seed=3,
                  read=keyboard(["help", "dragon", "Z", "", "pass"]), write=out.append)
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
    assert play("battle_sheep", {}, ["human", "random"], seed=0, read=keyboard(["T 5,0/0", "quit"]),
                write=out.append) is None
    assert "illegal here: 'T 5,0/0'" in "\n".join(out)  # the first tile must cover the centre
    assert out[-1] == "game abandoned"


def test_tournament_games_replay_to_the_same_results(tmp_path):
    result = run_tournament("battle_sheep", {"num_players": 3}, ["random", "greedy"], games=3, seed=5,
                            progress=False)
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
