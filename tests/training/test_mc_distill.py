"""python -m lab.mc_distill: its labels, its seeding, and a small end-to-end run to a usable checkpoint."""

from __future__ import annotations

import json

import numpy as np

from envs.bestiarium.rules import BestiariumGame
from lab import mc_distill
from training.checkpoint import load_network, load_policy


def test_generate_labels_every_legal_action_and_is_seeded():
    data = mc_distill.generate(seed=3, games=2, rollouts=2, label_fraction=0.5, random_plies=4)
    game = BestiariumGame()
    n = data["obs"].shape[0]
    assert n > 20 and data["obs"].shape[1:] == game.observation_shape and data["values"].shape == (n, 92)
    legal = ~np.isnan(data["values"])
    assert np.all(legal.sum(1) >= 2)  # forced moves are not labelled
    assert np.all(np.abs(data["values"][legal]) <= 1.0)
    assert sum(len(r) for r in data["results"].values()) + 0 <= data["games"] == 2
    again = mc_distill.generate(seed=3, games=2, rollouts=2, label_fraction=0.5, random_plies=4)
    assert np.array_equal(again["values"], data["values"], equal_nan=True)
    assert np.array_equal(again["obs"], data["obs"])


def test_teacher_move_is_the_best_legal_value():
    values = np.array([np.nan, 0.2, -0.5, 0.7, np.nan, 0.7])
    moves = {mc_distill.teacher_move(values, np.random.default_rng(k)) for k in range(30)}
    assert moves == {3, 5}


def test_main_fits_and_saves_a_checkpoint_the_harness_loads(tmp_path):
    report = mc_distill.main(
        [
            "--games",
            "2",
            "--workers",
            "1",
            "--rollouts",
            "2",
            "--epochs",
            "2",
            "--torch-threads",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert report["positions"] > 20 and len(report["fit"]) == 3
    assert all(np.isfinite(r["regret"]) and 0 <= r["agree"] <= 1 for r in report["fit"])
    net, meta, game = load_network(tmp_path / "policy.pt", game="bestiarium")
    assert meta["config"]["algo"] == "mc_distill" and meta["network"].get("global_planes") == 38
    policy = load_policy(tmp_path / "policy.pt", game="bestiarium")
    from envs.common.policies import decision_from_state

    state = game.initial_state()
    for _ in range(6):
        seat = game.current_player(state)
        action = policy.act(decision_from_state(game, state, seat))
        assert action in game.legal_actions(state)
        game.apply(state, action)
    again = mc_distill.main(
        [
            "--data",
            str(tmp_path / "positions.npz"),
            "--epochs",
            "2",
            "--torch-threads",
            "1",
            "--out",
            str(tmp_path / "again"),
        ]
    )
    assert again["fit"] == report["fit"]  # same data, same seed: the same fit
    assert json.loads((tmp_path / "report.json").read_text())["positions"] == report["positions"]
