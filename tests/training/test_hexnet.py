"""HexNet: the network that works on a game's cells alone (Battle Sheep's pasture), not on the whole canvas."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import envs
from envs.common.game import CellGraph
from training.config import make_config
from training.distribution import masked_policy
from training.networks import CellBatch, GatherNeighbours, HexNet, build_network, network_spec, opposite_directions


def random_positions(num_players: int, games: int, seed: int, canvas_radius: int | None = None) -> tuple:
    """Observations, masks and phases of every decision of ``games`` random games (every seat's view of the
    position to move), with the game."""
    options = {"num_players": num_players}
    if canvas_radius is not None:
        options["canvas_radius"] = canvas_radius
    env = envs.module("battle_sheep").raw_env(**options)
    rng = np.random.default_rng(seed)
    obs, masks, phases = [], [], []
    for g in range(games):
        env.reset(seed=seed * 1000 + g)
        for _agent in env.agent_iter():
            o, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs.append(o["observation"])
            masks.append(o["action_mask"].astype(bool))
            phases.append(env.game_state.phase)
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return env.game, torch.from_numpy(np.stack(obs)), torch.from_numpy(np.stack(masks)), np.array(phases)


def small_net(game, seed: int = 0) -> HexNet:
    torch.manual_seed(seed)
    net = build_network(
        network_spec(make_config("battle_sheep", conv_channels=8, conv_layers=2, hidden=16), game), game
    )
    assert isinstance(net, HexNet)
    return net


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_legal_action_lies_on_a_support_cell_in_every_phase(num_players):
    game, obs, masks, phases = random_positions(num_players, games=3, seed=num_players)
    assert set(phases) >= {0, 1, 2}  # build, stack placement, moves
    net = small_net(game)
    cells = CellBatch(obs, net.table, net.opposite, net.board)
    support = torch.zeros(obs.shape[0], obs.shape[2] * obs.shape[3], dtype=torch.bool)
    support[cells.rows, cells.cells] = True
    rows, actions = masks.nonzero(as_tuple=True)
    layout = torch.as_tensor(game.action_layout()[:, 0])
    assert bool(support[rows, layout[actions]].all())
    # after the build the support is the pasture itself: far fewer cells than the canvas
    pasture = obs[:, 1].flatten(1) > 0.5
    after = torch.as_tensor(phases > 0)
    assert torch.equal(support[after], pasture[after])
    assert cells.counts[after].max() == 16 * num_players


def test_a_rows_result_does_not_depend_on_the_rest_of_the_batch():
    game, obs, masks, _ = random_positions(2, games=2, seed=5)
    net = small_net(game)
    with torch.no_grad():
        whole, value = masked_policy(net, obs, masks)
        for lo, hi in ((0, 1), (3, 9), (obs.shape[0] - 4, obs.shape[0])):
            part, part_value = masked_policy(net, obs[lo:hi], masks[lo:hi])
            assert torch.allclose(part_value, value[lo:hi], atol=1e-5)
            assert torch.allclose(part.probs, whole.probs[lo:hi], atol=1e-6)


def test_cells_outside_the_support_carry_nothing():
    game, obs, masks, phases = random_positions(2, games=1, seed=8)
    net = small_net(game)
    cells = CellBatch(obs, net.table, net.opposite, net.board)
    outside = torch.ones(obs.shape[0], obs.shape[2] * obs.shape[3], dtype=torch.bool)
    outside[cells.rows, cells.cells] = False
    noisy = obs.clone().flatten(2)
    noise = torch.rand_like(noisy) * outside[:, None, :]
    board = game.cell_graph()  # the planes that say where the support is stay as they are
    planes = [p for p in range(obs.shape[1]) if p not in (board.cell_plane, board.grow_plane)]
    noisy[:, planes] += noise[:, planes]
    with torch.no_grad():
        a, va = masked_policy(net, obs, masks)
        b, vb = masked_policy(net, noisy.view_as(obs), masks)
    assert torch.allclose(va, vb, atol=1e-5) and torch.allclose(a.probs, b.probs, atol=1e-6)


def naive_hexnet(net: HexNet, obs: torch.Tensor, mask: torch.Tensor) -> tuple[np.ndarray, float]:
    """One observation through ``net``'s weights by plain loops over its support cells: (legal logits, value)."""
    cells = CellBatch(obs[None], net.table, net.opposite, net.board)
    support = cells.cells.tolist()
    table = net.table.numpy()
    x = {c: obs.flatten(1)[:, c].double().numpy() for c in support}

    def norm(module, v):
        g, b = module.weight.double().detach().numpy(), module.bias.double().detach().numpy()
        return (v - v.mean()) / np.sqrt(v.var() + module.eps) * g + b

    for layer in net.trunk:
        w, b = layer.linear.weight.double().detach().numpy(), layer.linear.bias.double().detach().numpy()
        pw, pb = layer.pool_bias.weight.double().detach().numpy(), layer.pool_bias.bias.double().detach().numpy()
        width = next(iter(x.values())).shape[0]
        y = x if layer.norm is None else {c: norm(layer.norm, x[c]) for c in support}
        h = {}
        for c in support:
            parts = [y[c]] + [y[n] if n >= 0 and n in y else np.zeros(width) for n in table[c]]
            h[c] = np.maximum(w @ np.concatenate(parts) + b, 0.0)
        mean = np.mean([h[c] for c in support], axis=0)
        bias = pw @ mean + pb
        x = {c: (x[c] if layer.residual else 0.0) + h[c] + bias for c in support}
    x = {c: norm(net.out_norm, x[c]) for c in support}
    stacked = np.stack([x[c] for c in support])
    pooled = np.concatenate([stacked.mean(0), stacked.max(0)])
    v1, v2 = net.value[0], net.value[2]
    value = (
        v2.weight.double().detach().numpy()
        @ np.maximum(v1.weight.double().detach().numpy() @ pooled + v1.bias.double().detach().numpy(), 0)
        + v2.bias.double().detach().numpy()
    )
    pw, pb = net.policy.weight.double().detach().numpy(), net.policy.bias.double().detach().numpy()
    layout = net.action_cell.numpy(), net.action_choice.numpy()
    logits = [(pw @ x[layout[0][a]] + pb)[layout[1][a]] for a in np.flatnonzero(mask.numpy())]
    return np.array(logits), float(value[0])


def test_hexnet_computes_the_hex_convolution_it_describes():
    game, obs, masks, phases = random_positions(2, games=1, seed=11)
    net = small_net(game, seed=3)
    picks = [int(np.flatnonzero(phases == p)[1]) for p in (0, 1, 2)]
    with torch.no_grad():
        logits, value = net(obs[picks])
    for k, i in enumerate(picks):
        expected_logits, expected_value = naive_hexnet(net, obs[i], masks[i])
        got = logits[k][masks[i]].double().numpy()
        assert np.allclose(got, expected_logits, atol=1e-4)
        assert abs(float(value[k]) - expected_value) < 1e-4


def test_neighbour_gather_gradient_is_the_adjoint():
    game, obs, _, _ = random_positions(2, games=1, seed=2)
    net = small_net(game)
    cells = CellBatch(obs[:6], net.table, net.opposite, net.board)
    x = torch.randn(cells.total, 3, dtype=torch.double, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: GatherNeighbours.apply(t, cells.neighbours, cells.senders), (x,))


def test_a_non_symmetric_cell_graph_is_refused():
    table = np.array([[1, -1], [-1, -1]])  # 1 is 0's neighbour, 0 is not 1's
    with pytest.raises(ValueError, match="not symmetric"):
        opposite_directions(table)
    assert opposite_directions(np.array([[1, -1], [-1, 0]])).tolist() == [1, 0]


def test_battle_sheep_networks_default_to_hex_and_conv_stays_available():
    game = envs.make_game("battle_sheep")
    assert isinstance(game.cell_graph(), CellGraph)
    assert network_spec(make_config("battle_sheep"), game)["kind"] == "hex"
    assert network_spec(make_config("battle_sheep", network="conv"), game)["kind"] == "conv"
    bestiarium = envs.make_game("bestiarium")
    assert network_spec(make_config("bestiarium"), bestiarium)["kind"] == "conv"
    with pytest.raises(ValueError, match="cell graph"):
        network_spec(make_config("bestiarium", network="hex"), bestiarium)
