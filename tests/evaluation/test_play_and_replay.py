"""Terminal play (scripted keyboard), game records and exact replays, GIF export."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from training.arena.records import RecordError, load_records, replay, save_records, write_gif
from training.arena.tournament import run_tournament
from training.play import terminal
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
    """Player_0 (greedy) bids first; the human at seat 1 must not learn its card or hand before bidding. The screen
    up to the human's prompt is the same whatever player_0 holds, says only that a card was laid face down, and shows
    player_0's hand and bid as hidden."""
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


# ----- the command: seeds, outputs and Ctrl-C ------------------------------------------------------------------------
def _play(argv, capsys):
    """``barnyard play ARGV``: (exit status, stdout, stderr)."""
    code = 0
    try:
        terminal.main(argv)
    except SystemExit as done:
        code = done.code
    out, err = capsys.readouterr()
    return code, out, err


def test_play_without_a_seed_deals_from_entropy_and_says_how_to_deal_it_again(tmp_path, capsys):
    """Terminal Boaring dealt the same hands every run (its seed was 0); as on the web page, a game without
    ``--seed`` is dealt from the system's entropy, and its seed is printed at the end and recorded, so it replays."""
    seeds = []
    for k in range(2):
        path = tmp_path / f"game{k}.json"
        code, out, _ = _play(["--game", "boaring", "--watch", "--policies", "random", "--record", str(path)], capsys)
        (record,) = load_records(path)
        assert code == 0 and f"seed {record['seed']}: --seed {record['seed']} deals this game again" in out
        assert [a for _, _, a in replay(record)][1:] == record["actions"]
        seeds.append(record["seed"])
    assert seeds[0] != seeds[1]  # two draws of 2**32 seeds: equal once in four billion runs
    code, out, _ = _play(["--game", "boaring", "--watch", "--policies", "random", "--seed", "7"], capsys)
    assert code == 0 and "deals this game again" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--record", "/dev/null/x"], "error: --record /dev/null/x: /dev/null is a file, not a folder"),
        (["--seed", "-1"], "error: --seed -1: give a whole number from 0 to 4294967295"),
        (["--delay", "1e300"], "error: --delay 1e+300: give seconds from 0 to 60"),
        (["--policies", "nonsense"], "error: unknown policy 'nonsense' for bestiarium"),
    ],
)
def test_play_refuses_what_cannot_work_before_the_game(argv, message, capsys):
    """``--record /dev/null/x`` failed after the game (a traceback, the game lost), ``--delay 1e300`` after the first
    move (OverflowError): one line, exit status 2, before the board is drawn."""
    code, out, err = _play(["--game", "bestiarium", "--watch", "--policies", "random", *argv], capsys)
    assert code == 2 and out == "" and err.startswith(message) and err.count("\n") == 1, err


def test_a_folder_as_a_checkpoint_is_one_error_line(tmp_path, capsys):
    """A folder named like a checkpoint, next to a real sidecar, was an IsADirectoryError traceback."""
    (tmp_path / "policy.pt").mkdir()
    (tmp_path / "policy.json").write_text(Path("checkpoints/bestiarium/policy.json").read_text())
    code, out, err = _play(["--game", "bestiarium", "--opponent", str(tmp_path / "policy.pt")], capsys)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err


def test_ctrl_c_at_the_move_prompt_ends_the_game_without_a_traceback():
    """Ctrl-C at ``your move`` was a KeyboardInterrupt traceback: now exit status 130 and nothing else."""
    game = subprocess.Popen(
        [sys.executable, "-u", "-m", "training", "play", "--game", "bestiarium", "--opponent", "random", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # as at a terminal: pytest-xdist's workers ignore SIGINT, and an ignored signal stays ignored in a child
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    shown = b""
    while b"your move" not in shown:
        chunk = os.read(game.stdout.fileno(), 4096)
        assert chunk, game.stderr.read().decode()
        shown += chunk
    game.send_signal(signal.SIGINT)
    _, err = game.communicate(timeout=60)
    assert game.returncode == 130 and "Traceback" not in err.decode(), err.decode()


def test_replay_of_a_missing_file_is_one_error_line_and_exit_status_2(tmp_path, capsys):
    from training.arena import records

    with pytest.raises(SystemExit) as done:
        records.main([str(tmp_path / "none.json"), "--gif", "/dev/null/x.gif"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.startswith(f"error: cannot read game record {tmp_path / 'none.json'}"), err
