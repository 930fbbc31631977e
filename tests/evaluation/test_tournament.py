"""The tournament harness: statistics against hand-computed values, fair seating, reproducibility, errors."""

import json
import math
import tracemalloc
from collections import Counter

import numpy as np
import pytest

import envs
from envs.common.policies import RandomPolicy
from training.arena import tournament
from training.arena.players import UnknownPolicyError, make_policy
from training.arena.tournament import (
    PolicyError,
    Task,
    fit_bradley_terry,
    play_game,
    run_tournament,
    save_result,
    schedule,
    wilson_interval,
    worker_pool,
)


def test_wilson_interval_matches_hand_computation():
    # p = 0.8, n = 10, z = 1.96: centre = (0.8 + 0.19208) / 1.38416, half = 1.96 * sqrt(0.016 + 0.009604) / 1.38416
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson_interval(0, 20)
    assert lo == 0.0 and hi == pytest.approx(3.8415 / (20 + 3.8415), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_bradley_terry_two_players_matches_the_closed_form():
    # A beats B 3 times in 4: MLE strength gap ln 3; Fisher information n p (1 - p) = 0.75 for the gap.
    comparisons = [(0, 1, 1.0)] * 3 + [(0, 1, 0.0)]
    elo, se = fit_bradley_terry(2, comparisons, prior_games=0.0)
    scale = 400 / math.log(10)
    assert elo[0] == pytest.approx(scale * math.log(3) / 2, abs=1e-6)
    assert elo[1] == pytest.approx(-elo[0])
    assert se[0] == pytest.approx(scale * math.sqrt(1 / 3), abs=1e-6)  # var(gap)/4 = (1/0.75)/4


def test_bradley_terry_orders_a_transitive_pool_and_draws_are_neutral():
    comparisons = [(0, 1, 1.0)] * 8 + [(1, 2, 1.0)] * 8 + [(0, 2, 1.0)] * 8 + [(0, 1, 0.0)] * 2
    elo, _ = fit_bradley_terry(3, comparisons)
    assert elo[0] > elo[1] > elo[2] and abs(sum(elo)) < 1e-6
    elo, _ = fit_bradley_terry(2, [(0, 1, 0.5)] * 10)
    assert np.allclose(elo, 0.0)


@pytest.mark.parametrize("players, games", [(2, 10), (4, 12), (3, 9)])
def test_seat_rotation_is_balanced(players, games):
    tasks = schedule(3, players, games, seed=0)
    pairs = [(0, 1), (0, 2), (1, 2)] + ([(1, 0), (2, 0), (2, 1)] if players > 2 else [])
    assert {t.pair for t in tasks} == set(pairs)  # with 3+ players each pair is played both ways round
    for pair in pairs:
        seats = Counter(t.hero_seat for t in tasks if t.pair == pair)
        assert set(seats) == set(range(players)) and len(set(seats.values())) == 1
        assert sum(seats.values()) == games
    assert len({t.seed for t in tasks}) == len(tasks)


def test_same_seed_same_results_whatever_the_workers():
    a = run_tournament("battle_sheep", {}, ["random", "greedy"], games=6, seed=3, workers=1, progress=False)
    b = run_tournament("battle_sheep", {}, ["random", "greedy"], games=6, seed=3, workers=2, progress=False)
    c = run_tournament("battle_sheep", {}, ["random", "greedy"], games=6, seed=4, workers=1, progress=False)
    assert [r.actions for r in a.records] == [r.actions for r in b.records]
    assert [r.actions for r in a.records] != [r.actions for r in c.records]
    assert a.pairs == b.pairs


def test_the_workers_run_torch_on_one_thread_each_unless_the_user_says(monkeypatch):
    """The harness's workers share the cores: a worker whose forward passes spread over every core oversubscribed
    them (a network's moves took 10x longer in matches against a compiled search). OMP_NUM_THREADS, when the user
    sets it, stands."""
    import torch

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with worker_pool(2) as pool:
        assert pool.apply(torch.get_num_threads) == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    with worker_pool(2) as pool:
        assert pool.apply(torch.get_num_threads) == 2


def test_pair_statistics_count_every_game_from_the_heros_seat():
    result = (
        run_tournament("boaring", {"num_players": 3}, ["random", "greedy"], games=6, seed=0, progress=False)
        if _has_baseline("boaring")
        else run_tournament("battle_sheep", {"num_players": 3}, ["random", "greedy"], games=6, seed=0, progress=False)
    )
    assert [(p.a, p.b) for p in result.pairs] == [("random", "greedy"), ("greedy", "random")]
    pair = result.pairs[0]
    assert pair.games == 6 and pair.wins + pair.draws + pair.losses == 6 and pair.parity == pytest.approx(1 / 3)
    hero_share = 0.0
    for task_record in result.records:
        hero = [i for i, s in enumerate(task_record.seats) if s == "random"]
        if len(hero) != 1:  # the other orientation: greedy alone against two random
            continue
        assert len(hero) == 1
        top = max(task_record.returns)
        firsts = [i for i, r in enumerate(task_record.returns) if r == top]
        hero_share += (1 / len(firsts)) if hero[0] in firsts else 0.0
    assert pair.win_share == pytest.approx(hero_share / 6)


def _has_baseline(game):
    try:
        __import__(f"envs.{game}.baselines")
        return True
    except ModuleNotFoundError:
        return False


class IllegalPolicy:
    name = "cheater"

    def reset(self, seed=None):
        pass

    def act(self, decision):
        return int(np.flatnonzero(decision.action_mask == 0)[0])


def test_a_policy_returning_an_illegal_action_is_reported_by_name():
    with pytest.raises(PolicyError, match="'cheater' .*illegal action"):
        play_game("battle_sheep", {}, ["cheater", "random"], seed=0, policies=[IllegalPolicy(), RandomPolicy(0)])


def test_unknown_policy_game_or_missing_checkpoint_are_clear_errors(tmp_path):
    with pytest.raises(UnknownPolicyError, match="choose from random, greedy, search"):
        make_policy("gready", "battle_sheep")
    with pytest.raises(UnknownPolicyError, match="does not exist"):
        make_policy(str(tmp_path / "missing.pt"), "battle_sheep")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        run_tournament("chess", {}, ["random", "greedy"], games=2, progress=False)


def test_reports_are_written(tmp_path):
    result = run_tournament("battle_sheep", {}, ["random", "greedy"], games=4, seed=0, progress=False)
    json_path, png_path = save_result(result, tmp_path)
    data = json.loads(json_path.read_text())
    assert data["policies"] == ["random", "greedy"] and data["pairs"][0]["games"] == 4
    assert png_path.read_bytes()[:4] == b"\x89PNG"
    assert "| random | greedy | 4 |" in result.markdown()


@pytest.mark.parametrize("game, options", [("battle_sheep", {}), ("battle_sheep", {"num_players": 3})])
def test_versus_plays_the_full_tournaments_games_for_the_first_policys_pairs(game, options):
    specs = ["random", "greedy", "search:4"]
    full = run_tournament(game, options, specs, games=3, seed=2, progress=False)
    versus = run_tournament(game, options, specs, games=3, seed=2, progress=False, versus=True)
    first_pairs = [p for p in full.pairs if "random" in (p.a, p.b)]
    assert versus.pairs == first_pairs and len(versus.pairs) == (2 if not options else 4)
    assert all("random" in r.seats for r in versus.records)
    assert [r.actions for r in versus.records] == [r.actions for r in full.records if "random" in r.seats]


def test_evaluate_without_matplotlib_keeps_the_json_and_the_games(tmp_path, monkeypatch, capsys):
    """The documented [web] install has no matplotlib: the chart is skipped with a note, and the JSON and the
    --save-games file are still written."""
    import sys

    from training.arena import tournament

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")] + ["matplotlib"]:
        monkeypatch.setitem(sys.modules, name, None)  # import matplotlib -> ModuleNotFoundError
    games = tmp_path / "games.json"
    tournament.main(
        [
            "--game",
            "beasty_borders",
            "--policies",
            "random",
            "greedy",
            "--games",
            "2",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "out"),
            "--save-games",
            str(games),
        ]
    )
    out = capsys.readouterr().out
    assert "no chart: matplotlib is missing" in out
    data = json.loads((tmp_path / "out" / "beasty_borders_tournament.json").read_text())
    assert data["policies"] == ["random", "greedy"]
    assert not (tmp_path / "out" / "beasty_borders_tournament.png").exists()
    assert len(json.loads(games.read_text())) == 2


# ----- counts and outputs checked before any game -----------------------------------------------------------------
def test_a_schedule_of_any_length_is_made_game_by_game(no_hang):
    """``evaluate --games 10**10`` built a list of every game before the first one (1.3 GB after 15 s); the schedule
    now computes each game from its index: 6 * 10**10 games cost nothing, and a small one lists the same games in the
    same order as before."""
    tracemalloc.start()
    tasks = schedule(3, 4, 10**10, seed=2)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 100_000
    assert len(tasks) == 6 * 10**10
    k = 3 * 10**10 + 5  # the fourth pair, (2, 0), its sixth game: the hero at seat 5 % 4
    assert tasks[k] == Task(k, (2, 0), 1, 2 * 1_000_003 + k)
    expected, k = [], 0
    for pair in [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]:
        for g in range(9):
            expected.append(Task(k, pair, g % 4, 1_000_003 + k))
            k += 1
    assert list(schedule(3, 4, 9, seed=1)) == expected


def test_a_count_beyond_the_cap_is_refused_before_any_policy_is_built(monkeypatch, no_hang):
    built = []
    monkeypatch.setattr(tournament, "make_policy", lambda *a, **k: built.append(a))
    envs.make_game("bestiarium")  # the engine's first use, outside the count
    tracemalloc.start()
    with pytest.raises(ValueError, match=r"--games 10000000000 makes 10,000,000,000 games .*at most 1,000,000"):
        run_tournament("bestiarium", {}, ["random", "greedy"], games=10**10, progress=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert built == [] and peak < 2_000_000
    with pytest.raises(ValueError, match="--games 0: give at least 1"):
        run_tournament("bestiarium", {}, ["random", "greedy"], games=0, progress=False)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_large_count_starts_playing_before_it_builds_anything(workers, monkeypatch):
    """A million games (the cap) start at once: the first game is asked for before the rest are made (with workers,
    the pool takes them as it has room)."""

    class FirstGame(Exception):
        pass

    def first_game(job):
        raise FirstGame

    class Pool:  # the pool's side: it takes the first job and plays it
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def imap_unordered(self, play, jobs, chunksize):
            yield play(next(iter(jobs)))

    monkeypatch.setattr(tournament, "run_task", first_game)
    monkeypatch.setattr(tournament, "worker_pool", lambda workers: Pool())
    tracemalloc.start()
    with pytest.raises(FirstGame):
        run_tournament("bestiarium", {}, ["random", "first"], games=10**6, workers=workers, progress=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 5_000_000


def _evaluate(argv, capsys):
    """``barnyard evaluate ARGV``: (exit status, stdout, stderr)."""
    with pytest.raises(SystemExit) as done:
        tournament.main(["--game", "bestiarium", "--policies", "random", "greedy", "--workers", "1", *argv])
    out, err = capsys.readouterr()
    return done.value.code, out, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", str(10**10)], "error: --games 10000000000 makes 10,000,000,000 games"),
        (["--seed", "-1"], "error: --seed -1: give a whole number from 0 to 4294967295"),
        (["--out", "/dev/null/x"], "error: --out /dev/null/x: /dev/null is a file, not a folder"),
        (["--save-games", "/dev/null/x"], "error: --save-games /dev/null/x: /dev/null is a file, not a folder"),
        (["--policies", "random", "nonsense"], "error: unknown policy 'nonsense' for bestiarium"),
    ],
)
def test_evaluate_refuses_a_bad_count_seed_output_or_policy_before_any_game(
    argv, message, monkeypatch, capsys, no_hang
):
    """Each is one line on stderr and exit status 2, before any game: ``--out /dev/null/x`` used to fail after the
    games, losing them; ``--seed -1`` after the first game had started."""
    played = []
    monkeypatch.setattr(tournament, "run_task", lambda job: played.append(job))
    code, out, err = _evaluate(argv, capsys)
    assert code == 2 and err.splitlines()[-1].startswith(message), err
    assert "Traceback" not in err and played == [] and out == ""


def test_evaluate_saves_into_an_output_folder_it_checked(tmp_path, capsys):
    code = tournament.main(
        [
            "--game",
            "bestiarium",
            "--policies",
            "random",
            "first",
            "--games",
            "2",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "new" / "folder"),
            "--save-games",
            str(tmp_path / "games" / "all.json"),
        ]
    )
    assert code is None and (tmp_path / "new" / "folder" / "bestiarium_tournament.json").exists()
    assert len(json.loads((tmp_path / "games" / "all.json").read_text())) == 2
