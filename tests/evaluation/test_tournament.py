"""The tournament harness: statistics against hand-computed values, fair seating, reproducibility, errors."""

import json
import math
from collections import Counter

import numpy as np
import pytest

from envs.common.policies import RandomPolicy
from training.arena.players import UnknownPolicyError, make_policy
from training.arena.tournament import (
    PolicyError,
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
