"""PPO's warm start by imitating the compiled ``greedy`` (config ``imitate_greedy``): the positions and their
labels, the fit, and the trainer's use of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import envs
from training.config import make_config
from training.networks import build_network, network_spec
from training.ppo.loop import train
from training.ppo.warmstart import fit_warm_start, greedy_demonstrations

GAME = "beasty_borders"


def test_demonstrations_are_seeded_legal_and_labelled_with_results():
    a = greedy_demonstrations(GAME, {}, 3000, seed=4, gamma=1.0)
    b = greedy_demonstrations(GAME, {}, 3000, seed=4, gamma=1.0)
    c = greedy_demonstrations(GAME, {}, 3000, seed=5, gamma=1.0)
    assert len(a) >= 3000 and a.games >= 3000 // 84  # whole games only: 42..84 plies each
    assert all(
        np.array_equal(x, y) for x, y in zip((a.obs, a.actions, a.value_targets), (b.obs, b.actions, b.value_targets))
    )
    assert not np.array_equal(a.actions[:500], c.actions[:500]) or not np.array_equal(a.obs[:500], c.obs[:500])
    assert a.masks[np.arange(len(a)), a.actions].all()  # greedy's label is always legal
    assert set(np.unique(a.value_targets).tolist()) <= {-1.0, 0.0, 1.0}  # undiscounted, unshaped: the result
    shaped = greedy_demonstrations(GAME, {}, 3000, seed=4, gamma=1.0, score_shaping=0.2)
    assert np.array_equal(shaped.actions, a.actions)  # same games; the targets take off the potential
    assert not set(np.unique(shaped.value_targets).tolist()) <= {-1.0, 0.0, 1.0}
    discounted = greedy_demonstrations(GAME, {}, 3000, seed=4, gamma=0.5)
    assert np.all(np.abs(discounted.value_targets) <= 1) and np.any(np.abs(discounted.value_targets) < 0.5)
    with pytest.raises(ValueError, match="unknown game"):
        greedy_demonstrations("no_such_game", {}, 10, seed=0)


def test_the_fit_learns_greedys_moves_on_unseen_positions():
    torch.manual_seed(0)
    game = envs.make_game(GAME)
    net = build_network(network_spec(make_config(GAME, hidden=64), game), game)
    train_set = greedy_demonstrations(GAME, {}, 20_000, seed=1)
    held_out = greedy_demonstrations(GAME, {}, 3_000, seed=2)

    def accuracy() -> float:
        from training.distribution import masked_policy

        with torch.no_grad():
            dist, _ = masked_policy(net, torch.from_numpy(held_out.obs), held_out.masks)
            return float((dist.mode().numpy() == held_out.actions).mean())

    before = accuracy()
    stats = fit_warm_start(net, train_set, epochs=10, seed=0)
    after = accuracy()
    assert after > 0.65 and after > before + 0.3, (before, after, stats)  # measured: 0.27 -> 0.74


def test_the_trainer_warm_starts_reproducibly_and_refuses_two_warm_starts(tmp_path: Path):
    base = dict(
        num_envs=4,
        num_steps=16,
        total_steps=64,
        hidden=32,
        eval_every=0,
        progress=False,
        num_workers=0,
        imitate_greedy=600,
        imitate_epochs=1,
    )
    a = train(make_config(GAME, **base, out=str(tmp_path / "a")))
    b = train(make_config(GAME, **base, out=str(tmp_path / "b")))
    cold = train(make_config(GAME, **{**base, "imitate_greedy": 0}, out=str(tmp_path / "cold")))
    pa, pb, pc = (torch.load(p, weights_only=True)["model"] for p in (a, b, cold))
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert not all(torch.equal(pa[k], pc[k]) for k in pa)
    with pytest.raises(ValueError, match="two warm starts"):
        train(make_config(GAME, **base, init_from=str(a), out=str(tmp_path / "c")))
