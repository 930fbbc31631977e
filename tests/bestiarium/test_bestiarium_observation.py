"""bestiarium_v1's observation, as built fast: byte-identical to the observations of the release, and the compiled
planes equal to their readable definitions on many random positions.

The golden digests below were taken from the observations of the slower build that first shipped v1 (commit
6b4f9ec: both seats' observations, every ply of seeded games, through ``env()``); the faster kernels must give
the same bytes. The differential tests compare the compiled planes (AEC ``env()`` and the batched engine) with
``ObservationEncoder.encode_numpy`` (planes 0-9) and ``observation.score_planes_reference`` (planes 10-55) on random
positions from games that mostly grow their creatures (so that they eat, chain and compare many shapes).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from envs import bestiarium_v1
from envs.bestiarium import observation
from envs.bestiarium.observation import NUM_STONE_PLANES, score_planes_reference
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
        for _agent in env.agent_iter():
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


def readable_observation(game: BestiariumGame, state, seat: int) -> np.ndarray:
    """The observation from the readable definitions: ``encode_numpy`` (planes 0-9) and
    ``score_planes_reference`` (planes 10-55, per cell, put on their squares)."""
    grow = state.phase == GROW and not state.over
    chain = state.members[state.chain] if grow else None
    stones = observation.encoder(game).encode_numpy(
        np.frombuffer(state.color, dtype=np.uint8),
        seat,
        chain,
        grow,
        state.passes == 1,
        state.members,
        state.cid,
        state.legal[seat],
    )
    out = np.zeros(game.observation_shape, dtype=np.float32)
    out[:NUM_STONE_PLANES] = stones
    flat = out.reshape(out.shape[0], -1)
    flat[NUM_STONE_PLANES:, game.grid.square_index] = score_planes_reference(game, state, seat)
    constant = flat[NUM_STONE_PLANES:, game.grid.square_index[0]]  # the constant planes cover the corners too
    off = np.setdiff1d(np.arange(flat.shape[1]), game.grid.square_index)
    flat[observation.MY_VALUE :, off] = constant[observation.MY_VALUE - NUM_STONE_PLANES :, None]
    return out


@pytest.mark.parametrize(
    "size,eq", [(5, "free"), (5, "fixed"), (6, "one_sided"), (6, "free"), (7, "fixed"), (7, "one_sided")]
)
def test_compiled_planes_equal_the_readable_ones_on_random_games(size, eq):
    """Both engines' compiled observations (both seats, every ply) against the readable definitions, on games
    played in both engines with the same moves (the batched engine's creatures keep the cell they were born on
    as their key, which need not be their first cell: its own bookkeeping is what its kernel reads)."""
    from envs.bestiarium.fast import BestiariumBatched

    fg = BestiariumBatched(board_size=size, shape_equivalence=eq)
    game = fg.reference
    games = 6
    state = fg.new_state(games)
    fg.reset_rows(state, np.arange(games))
    refs = [game.initial_state() for _ in range(games)]
    rng = np.random.default_rng(size * 7 + len(eq))
    obs = np.zeros((games, *fg.observation_shape), dtype=np.float32)
    seen = {"positions": 0, "grow": 0, "eat": 0}
    while True:
        live = [b for b in range(games) if not game.is_terminal(refs[b]) and not game.is_truncated(refs[b])]
        for seat in (0, 1):
            fg.observe(state, np.full(games, seat), obs)
            for b in range(games):
                want = readable_observation(game, refs[b], seat)
                assert np.array_equal(obs[b], want), (b, seat, refs[b].plies)
                assert np.array_equal(game.observation(refs[b], seat), want), (b, seat, refs[b].plies)
                seen["eat"] += bool(want[14].any() or want[15].any())
        seen["positions"] += games
        if not live:
            break
        actions = np.full(games, fg.num_cells, dtype=np.int64)
        for b in live:
            actions[b] = grower_action(game, refs[b], np.flatnonzero(game.legal_mask(refs[b])), rng)
            game.apply(refs[b], int(actions[b]))
            seen["grow"] += refs[b].phase == GROW
        fg.apply(state, actions)
    assert seen["positions"] > 300 and seen["grow"] > 0 and seen["eat"] > 20, seen


@pytest.mark.parametrize("eq", ["free", "one_sided", "fixed"])
def test_rules_shape_forms_are_hexgrids_canonical_shapes(eq):
    """``rules.py`` names shapes by ``hexgrid.canonical_shape`` computed from per-board symmetry images: the same
    tuple for every creature met in random games."""
    from envs.common.hexgrid import canonical_shape
    from tests.bestiarium.test_bestiarium_fast import random_positions

    game = BestiariumGame(board_size=6, shape_equivalence=eq)
    count = 0
    for s in random_positions(game, 60, seed=4):
        for cells in s.members.values():
            assert game.shapes.canonical_shape(cells) == canonical_shape([game.grid.coords[c] for c in cells], eq)
            count += 1
    assert count > 500


def test_env_observations_are_built_per_read_and_each_read_owns_its_planes():
    """Every read builds the reader's planes (no cache a caller's writes could reach): the same position gives
    equal planes in arrays of their own, a write into one changes no later read, a move changes them, and a
    reset with the same seed gives the first planes back."""
    env = bestiarium_v1.env()
    env.reset(seed=0)
    first = env.observe("player_0")["observation"]
    second, *_ = env.last()
    assert np.array_equal(first, second["observation"])
    assert not np.shares_memory(first, second["observation"])
    expected = first.copy()
    first[:] = 5.0
    second["observation"][:] = 7.0
    assert np.array_equal(env.observe("player_0")["observation"], expected)
    env.step(int(np.flatnonzero(second["action_mask"])[0]))
    moved = env.observe("player_0")["observation"]
    assert not np.array_equal(moved, expected)
    assert not np.array_equal(env.observe("player_1")["observation"], moved)  # a stone of one seat: views differ
    env.reset(seed=0)
    assert np.array_equal(env.observe("player_0")["observation"], expected)


def test_the_rules_declare_the_layouts_plane_counts():
    """``rules.py`` comes before the views, so it declares the observation's shape itself: its plane counts are the
    layout's (``observation.py``)."""
    from envs.bestiarium import rules

    assert rules.OBSERVATION_PLANES == observation.NUM_PLANES
    assert rules.GLOBAL_PLANES == observation.NUM_GLOBAL_PLANES
    assert BestiariumGame().global_planes == observation.NUM_GLOBAL_PLANES
