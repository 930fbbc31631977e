"""The checkpoints shipped in ``checkpoints/<game>/`` still load against today's envs and play legal games.

An observation or action-space change that the shipped weights no longer fit fails here (the loader checks the
space signature) instead of in a user's first ``python -m training evaluate``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import envs
from training.arena.tournament import play_game
from training.checkpoint import load_policy, read_sidecar

ROOT = Path(__file__).resolve().parents[2] / "checkpoints"


SHIPPED = sorted(ROOT.glob("*/*.pt"))


def test_every_shipped_policy_is_a_registered_games():
    """Each folder of ``checkpoints/`` is a game's, with its ``policy.pt`` (a game without a shipped policy is
    allowed: the tests below cover the ones present)."""
    folders = {p.parent.name for p in SHIPPED}
    assert folders and folders <= set(envs.GAMES)
    assert folders == {p.parent.name for p in SHIPPED if p.name == "policy.pt"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_checkpoint_loads_and_plays(path: Path):
    game = path.parent.name
    sidecar = read_sidecar(path)
    assert sidecar["game"] == game
    # shipped at default options: the sidecar's options are what the env uses without any
    assert sidecar["options"] == envs.make_game(game).options()
    policy = load_policy(path, seed=0)
    n = envs.make_game(game).num_players
    seats = ["random"] * n
    seats[0] = "checkpoint"
    record = play_game(game, {}, seats, seed=3, policies=[policy] + [_random(i) for i in range(1, n)])
    assert record.actions and not record.truncated


def _random(seed: int):
    from envs.common.policies import RandomPolicy

    return RandomPolicy(seed)


def test_shipped_checkpoints_are_small():
    total = sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file())
    assert total < 20 * 1024 * 1024
    for game in {p.parent.name for p in SHIPPED}:
        assert json.loads((ROOT / game / "policy.json").read_text())["weights_sha256"]
