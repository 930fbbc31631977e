"""Bestiarium's input features ``consequences`` (``BestiariumBatched.consequence_planes``): six planes per
observation saying what each of the observer's moves would do by greedy's key, computed from the observation
alone, and the conv network that reads them (spec ``input_features``)."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch

import envs
from envs.bestiarium.baselines import cascade_key
from envs.bestiarium.fast import CONSEQUENCE_PLANES, EXPOSURE_PLANES, BestiariumBatched
from envs.bestiarium.rules import GROW, BestiariumGame, BestiariumState
from tests.bestiarium.test_bestiarium_fast import random_positions
from tests.bestiarium.test_fast_greedy import python_keys
from training.config import TrainConfig
from training.networks import build_network, network_spec


def expected_planes(game: BestiariumGame, s: BestiariumState) -> np.ndarray:
    """The planes as ``CONSEQUENCE_PLANES`` defines them, from the Python greedy's keys (``key_after_chain``)."""
    side = game.observation_shape[1]
    out = np.zeros((len(CONSEQUENCE_PLANES), side * side), dtype=np.float64)
    legal, keys = python_keys(game, s)
    top = max(keys)
    base = cascade_key(game, s, s.to_move)
    for a, key in zip(legal, keys):
        if a == game.pass_action:
            continue
        sq = game.grid.square_index[a]
        out[0, sq] = float(key == top)
        out[1, sq] = sum(other < key for other in keys) / (len(keys) - 1) if len(keys) > 1 else 1.0
        if key[0]:
            out[2, sq] = out[3, sq] = float(np.sign(key[0]))
        else:
            for i, d in enumerate(key[1:], start=1):
                if d:
                    size = game.num_cells + 1 - i
                    out[2, sq] = float(np.sign(d))
                    out[3, sq] = math.tanh(d / (2.0 * size * size))
                    out[4, sq] = min(size / 12.0, 1.0)
                    break
        out[5, sq] = float(key > base) - float(key < base)
    return out.reshape(len(CONSEQUENCE_PLANES), side, side)


def expected_exposure(game: BestiariumGame, s: BestiariumState) -> np.ndarray:
    """``EXPOSURE_PLANES`` as documented, from the Python rules: the enemy stones one ``apply`` removes, and C'
    open to an enemy creature of size |C'| - 1 that touches it or touches an empty cell next to it (not the move's)
    where the opponent may place."""
    side = game.observation_shape[1]
    out = np.zeros((len(EXPOSURE_PLANES), side * side), dtype=np.float64)
    me, enemy = s.to_move + 1, 2 - s.to_move
    single = 1 if game.shape_equivalence == "fixed" else 2
    for a in game.legal_actions(s):
        if a == game.pass_action:
            continue
        if s.phase == GROW:
            joined = s.members[s.chain]
        else:
            friends = [s.cid[j] for j in game.nbrs[a] if s.color[j] == me]
            joined = s.members[friends[0]] if friends else []
        body = [*joined, a]
        if len(body) <= single:
            continue
        sq = game.grid.square_index[a]
        child = s.clone()
        game.apply(child, a)
        out[0, sq] = min((s.color.count(enemy) - child.color.count(enemy)) / 10.0, 1.0)

        threats = {x for x, c in enumerate(s.color) if c == enemy and len(s.members[s.cid[x]]) == len(body) - 1}
        around = {j for x in body for j in game.nbrs[x]} - set(body)
        open_to = bool(around & threats) or any(
            s.color[j] == 0 and s.legal[1 - s.to_move][j] and threats.intersection(game.nbrs[j]) for j in around
        )
        out[1, sq] = min(len(body) / 10.0, 1.0) if open_to else 0.0
    return out.reshape(len(EXPOSURE_PLANES), side, side)


@pytest.mark.parametrize(("size", "eq"), [(5, "fixed"), (6, "free"), (7, "one_sided")])
def test_planes_are_greedys_keys_read_from_the_observation(size, eq):
    game = BestiariumGame(board_size=size, shape_equivalence=eq)
    fast = BestiariumBatched(board_size=size, shape_equivalence=eq)
    positions = [s for s in random_positions(game, 90, seed=size) if not s.over]
    assert any(s.phase == GROW for s in positions) and any(s.passes == 1 for s in positions)
    assert {s.to_move for s in positions} == {0, 1}
    obs = np.stack([game.observation(s, s.to_move) for s in positions])
    planes = fast.consequence_planes(obs)
    for s, got in zip(positions, planes):
        np.testing.assert_allclose(got, expected_planes(game, s), rtol=0, atol=1e-6)
    # ``exposure``: the same six planes, then what each move eats at once and whether it leaves C' open
    wide = fast.consequence_planes(obs, exposure=True)
    np.testing.assert_array_equal(wide[:, : len(CONSEQUENCE_PLANES)], planes)
    for s, got in zip(positions, wide[:, len(CONSEQUENCE_PLANES) :]):
        np.testing.assert_allclose(got, expected_exposure(game, s), rtol=0, atol=1e-6)
    assert (wide[:, len(CONSEQUENCE_PLANES)] > 0).any() and (wide[:, len(CONSEQUENCE_PLANES) + 1] > 0).any()
    # a batch gives what its rows give one at a time, and ``out`` is filled in place
    out = np.full_like(planes[:3], 7.0)
    assert fast.consequence_planes(obs[:3], out) is out
    np.testing.assert_array_equal(out, planes[:3])


def test_planes_turn_with_the_board():
    """The key of a move does not depend on how the board is turned: the planes are equivariant."""
    game = BestiariumGame()
    fast = BestiariumBatched()
    for s in random_positions(game, 12, seed=3):
        if s.over:
            continue
        obs = game.observation(s, s.to_move)
        planes = fast.consequence_planes(obs[None])[0]
        for sym in game.symmetries(s)[1:4]:
            turned = fast.consequence_planes(sym.observation(obs)[None])[0]
            source = sym.observation_source.reshape(obs.shape)[: len(CONSEQUENCE_PLANES)]
            np.testing.assert_array_equal(turned, planes.reshape(-1)[source])


def test_bad_observations_are_refused():
    fast = BestiariumBatched(board_size=5)
    with pytest.raises(ValueError, match="observations of shape"):
        fast.consequence_planes(np.zeros((2, 56, 11, 11), dtype=np.float32))
    obs = np.zeros((2, *fast.observation_shape), dtype=np.float32)
    with pytest.raises(ValueError, match="out must be"):
        fast.consequence_planes(obs, np.zeros((2, 5, 9, 9), dtype=np.float32))


def test_a_conv_network_reads_them_and_keeps_them_through_a_copy_and_a_reload():
    game = envs.make_game("bestiarium", board_size=5)
    spec = network_spec(TrainConfig(game="bestiarium", input_features="consequences", conv_layers=2), game)
    assert spec["input_features"] == "consequences"
    torch.manual_seed(0)
    net = build_network(spec, game)
    positions = [s for s in random_positions(game, 6, seed=1) if not s.over]
    obs = torch.as_tensor(np.stack([game.observation(s, s.to_move) for s in positions]))
    logits, value = net(obs)
    assert logits.shape == (len(positions), game.num_actions) and value.shape == (len(positions),)
    # the policy head reads the planes: a weight on ``best`` alone moves exactly the best moves' logits
    with torch.no_grad():
        net.policy.weight.zero_()
        net.policy.bias.zero_()
        net.policy.weight[0, net.policy.weight.shape[1] - len(CONSEQUENCE_PLANES)] = 1.0
        cells = net(obs)[0][:, : game.num_cells].numpy()
    best = BestiariumBatched(board_size=5).consequence_planes(obs.numpy())[:, 0].reshape(len(positions), -1)
    np.testing.assert_array_equal(cells, best[:, game.grid.square_index])
    twin = copy.deepcopy(net)
    assert twin.features is not net.features and twin.features.compute is not net.features.compute
    reloaded = build_network(spec, game)
    reloaded.load_state_dict(net.state_dict())
    torch.testing.assert_close(reloaded(obs)[0], net(obs)[0])
    torch.testing.assert_close(twin(obs)[0], net(obs)[0])


def test_unknown_or_misplaced_input_features_are_clear_errors():
    game = envs.make_game("bestiarium", board_size=5)
    with pytest.raises(ValueError, match="offers consequences"):
        network_spec(TrainConfig(game="bestiarium", input_features="afterstates"), game)
    with pytest.raises(ValueError, match="needs network='conv'"):
        network_spec(TrainConfig(game="bestiarium", input_features="consequences", network="mlp"), game)
    other = envs.make_game("battle_sheep")
    with pytest.raises(ValueError, match="offers none"):
        network_spec(TrainConfig(game="battle_sheep", input_features="consequences", network="conv"), other)


def test_greedy_losses_reports_every_lost_game_and_is_seeded():
    from lab.greedy_losses import play

    first, again = play(12, seed=4), play(12, seed=4)
    won = first["won"]
    assert isinstance(won, np.ndarray) and won.shape == (12,)
    np.testing.assert_array_equal(won, again["won"])
    assert len(first["lost_games"]) == int((~won).sum())  # type: ignore[arg-type]
    for row in first["lost_games"]:  # type: ignore[union-attr]
        sizes = [size for size, _, _ in row]
        assert sizes == sorted(sizes, reverse=True) and len(sizes) <= 4
