"""bestiarium_v1's observation, as built fast: byte-identical to the observations of the release, and the compiled
planes equal to their readable definitions on many random positions.

The golden digests below were taken from the observations of the slower build that first shipped v1 (commit
6b4f9ec: both seats' observations, every ply of seeded games, through ``env()``); the faster kernels must give
the same bytes. The differential tests compare the compiled planes (AEC ``env()`` and the batched engine) with
``ObservationEncoder.encode_numpy`` (planes 0-9) and ``features.score_planes_reference`` (planes 10-55) on random
positions from games that mostly grow their creatures (so that they eat, chain and compare many shapes).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from envs import bestiarium_v1
from envs.bestiarium.features import score_planes_reference
from envs.bestiarium.observation import NUM_STONE_PLANES
from envs.bestiarium.rules import GROW, BestiariumGame

GOLDEN = {
    (5, "free"): "ea71f24e64783d68b9f5f2c09ffc14ac18046bc5c9f0bca1221d07e6988aa7f9",
    (6, "free"): "22dcf75817a976a80c7fcba3b8a367f62a73603ff248e5411ce825d91a6d93ce",
    (7, "free"): "4640540654079bf21d18c66aa22aaa436eef6c2d884d018229fa5fb114a6abc1",
    (5, "one_sided"): "23cc88aa16cb0af345eaa33b39e2082cf093879c8607d32b5673624b7630d18d",
    (6, "fixed"): "b27639cd5a8005e3ff90661db1b87f4082e736423e599be89cab3b5f21e59b08",
    (7, "fixed"): "5cbdc27e9d6b58870cc7d1231c831cc1349a0ad6046880cc9e37fff1fbd94b27",
}


def grower_action(game: BestiariumGame, state, legal: np.ndarray, rng: np.random.Generator) -> int:
    """Mostly a move next to the mover's own stones (bigger creatures, more eating), else uniform."""
    if legal.size > 1 and rng.random() < 0.75:
        own = state.to_move + 1
        near = [a for a in legal if a < game.num_cells and any(state.color[j] == own for j in game.nbrs[a])]
        if near:
            return int(near[rng.integers(len(near))])
    return int(legal[rng.integers(legal.size)])


def env_digest(size: int, eq: str, games: int, seed: int) -> str:
    """sha256 over both agents' observations and masks at every ply of ``games`` seeded games through env()."""
    env = bestiarium_v1.env(board_size=size, shape_equivalence=eq)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            for other in env.possible_agents:
                o = env.observe(other)
                h.update(o["observation"].tobytes())
                h.update(o["action_mask"].tobytes())
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(grower_action(env.unwrapped.game, env.unwrapped.game_state, legal, rng))
    return h.hexdigest()


@pytest.mark.parametrize("size,eq", list(GOLDEN))
def test_env_observations_are_byte_identical_to_the_release(size, eq):
    assert env_digest(size, eq, games=3, seed=size) == GOLDEN[(size, eq)]
