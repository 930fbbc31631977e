"""PPO maths: GAE against a hand-computed case, the masked distribution, the loss, the per-cell layout."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import envs
from training.distribution import MaskedCategorical
from training.ppo.maths import gae, ppo_loss


def test_gae_matches_hand_computation():
    # stream A: three decisions, the last ends the game; stream B: two decisions, cut by the rollout's end
    rewards = np.array([0.0, 0.5, 1.0, 0.0, 0.2], np.float32)
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5], np.float32)
    next_values = np.array([0.2, 0.3, 9.9, 0.5, 0.6], np.float32)  # 9.9 is ignored: done
    dones = np.array([False, False, True, False, False])
    chained = np.array([True, True, False, True, False])
    g, lam = 0.9, 0.8
    adv, ret = gae(rewards, values, next_values, dones, chained, g, lam)
    # stream A, backwards
    d2 = 1.0 - 0.3
    d1 = 0.5 + g * 0.3 - 0.2
    d0 = 0.0 + g * 0.2 - 0.1
    a2 = d2
    a1 = d1 + g * lam * a2
    a0 = d0 + g * lam * a1
    # stream B: the last sample bootstraps from next_value, no lambda chain beyond it
    d4 = 0.2 + g * 0.6 - 0.5
    d3 = 0.0 + g * 0.5 - 0.4
    a4 = d4
    a3 = d3 + g * lam * a4
    expected = np.array([a0, a1, a2, a3, a4])
    np.testing.assert_allclose(adv, expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ret, expected + values, rtol=1e-6, atol=1e-6)


def test_compiled_gae_is_the_plain_recursion_bit_for_bit():
    """The compiled kernel computes what the plain float32 loop over the samples computes, to the bit (the run's
    numbers did not change when the loop was compiled)."""

    def plain(r, v, nv, d, c, gamma, lam):
        out = np.zeros(len(r), np.float32)
        last = np.float32(0.0)
        for t in reversed(range(len(r))):
            nonterminal = 0.0 if d[t] else 1.0
            delta = r[t] + np.float32(gamma * nonterminal) * nv[t] - v[t]
            last = delta + np.float32(gamma * lam * nonterminal * (1.0 if c[t] else 0.0)) * last
            out[t] = last
        return out

    rng = np.random.default_rng(0)
    for gamma, lam in ((0.99, 0.95), (0.99, 0.8), (1.0, 1.0)):
        n = 500
        r, v, nv = (rng.normal(size=n).astype(np.float32) for _ in range(3))
        d, c = rng.random(n) < 0.1, rng.random(n) < 0.9
        adv, ret = gae(r, v, nv, d, c, gamma, lam)
        assert adv.tobytes() == plain(r, v, nv, d, c, gamma, lam).tobytes()
        assert ret.tobytes() == (adv + v).tobytes()


def test_gae_lambda_one_gamma_one_is_return_minus_value():
    rewards = np.array([0.0, 0.0, 1.0], np.float32)
    values = np.array([0.3, -0.2, 0.5], np.float32)
    adv, ret = gae(
        rewards,
        values,
        np.array([-0.2, 0.5, 0.0], np.float32),
        np.array([0, 0, 1], bool),
        np.array([1, 1, 0], bool),
        1.0,
        1.0,
    )
    np.testing.assert_allclose(ret, [1.0, 1.0, 1.0], atol=1e-6)


def test_masked_distribution_never_samples_illegal_actions():
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(64, 50, generator=gen) * 5
    logits[:, 0] = 100.0  # a huge logit on an action that is illegal in most rows
    mask = torch.rand(64, 50, generator=gen) < 0.1
    mask[torch.arange(64), torch.randint(1, 50, (64,), generator=gen)] = True
    mask[:8, 0] = True
    dist = MaskedCategorical(logits, mask)
    for _ in range(200):
        actions = dist.sample(gen)
        assert mask[torch.arange(64), actions].all()
    assert (dist.probs[~mask] == 0).all()
    assert torch.allclose(dist.probs.sum(-1), torch.ones(64))
    assert (dist.mode()[:8] == 0).all() and mask[torch.arange(64), dist.mode()].all()


def test_masked_entropy_is_over_legal_actions_only():
    logits = torch.tensor([[1.0, 2.0, 3.0, 50.0], [0.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[True, True, True, False], [True, False, True, False]])
    dist = MaskedCategorical(logits, mask)
    p = torch.softmax(torch.tensor([1.0, 2.0, 3.0]), 0)
    assert dist.entropy()[0].item() == pytest.approx(float(-(p * p.log()).sum()), rel=1e-6)
    assert dist.entropy()[1].item() == pytest.approx(math.log(2), rel=1e-6)
    assert dist.log_prob(torch.tensor([2, 2]))[1].item() == pytest.approx(math.log(0.5), rel=1e-6)
    assert torch.isfinite(dist.entropy()).all()


def test_masked_distribution_rejects_a_row_without_legal_action():
    dist = MaskedCategorical(torch.zeros(2, 3), torch.tensor([[True, False, False], [False, False, False]]))
    with pytest.raises(ValueError, match="no legal action"):
        dist.sample()


def test_network_samples_only_legal_battle_sheep_actions():
    from training.config import make_config
    from training.networks import build_network, network_spec

    env = envs.module("battle_sheep").raw_env(canvas_radius=6)
    net = build_network(network_spec(make_config("battle_sheep", conv_channels=8, conv_layers=2), env.game), env.game)
    gen = torch.Generator().manual_seed(1)
    rng = np.random.default_rng(1)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small batches: one thread is fastest on a busy machine
    env.reset(seed=3)
    steps = 0
    while not any(env.terminations.values()):
        seen = env.observe(env.agent_selection)
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(seen["observation"])[None].repeat(32, 1, 1, 1))
        dist = MaskedCategorical(logits, torch.from_numpy(seen["action_mask"]).bool()[None].repeat(32, 1))
        actions = dist.sample(gen)
        assert seen["action_mask"][actions.numpy()].all()
        env.step(int(actions[rng.integers(32)]))
        steps += 1
    torch.set_num_threads(threads)
    assert steps > 10


def test_ppo_loss_at_the_old_policy():
    n = 6
    logp = torch.log(torch.full((n,), 0.25))
    adv = torch.tensor([1.0, -1.0, 2.0, 0.0, 0.5, -0.5])
    values = torch.zeros(n)
    returns = torch.ones(n)
    loss, stats = ppo_loss(logp, logp, adv, torch.full((n,), 1.0), values, values, returns, ent_coef=0.1)
    assert stats["approx_kl"] == pytest.approx(0.0, abs=1e-7)
    assert stats["clipfrac"] == 0.0
    assert stats["policy_loss"] == pytest.approx(0.0, abs=1e-6)  # normalised advantages have mean 0
    assert stats["value_loss"] == pytest.approx(0.5)
    assert loss.item() == pytest.approx(0.5 * 0.5 - 0.1 * 1.0, rel=1e-5)


def test_ppo_loss_clips_the_surrogate_and_the_value():
    old = torch.zeros(2)
    new = torch.log(torch.tensor([2.0, 0.5]))  # ratios 2 and 0.5, both outside 1 +- 0.2
    adv = torch.tensor([1.0, 1.0])
    _, stats = ppo_loss(
        new,
        old,
        adv,
        torch.zeros(2),
        torch.tensor([1.0, 1.0]),
        torch.zeros(2),
        torch.tensor([1.0, 1.0]),
        clip_coef=0.2,
        norm_adv=False,
    )
    # min(r A, clip(r) A): 1.2 for the first, 0.5 for the second -> loss -(1.2 + 0.5) / 2
    assert stats["policy_loss"] == pytest.approx(-0.85, rel=1e-6)
    assert stats["clipfrac"] == 1.0
    # value clipped to old + 0.2 = 0.2: max((1-1)^2, (0.2-1)^2) / 2
    assert stats["value_loss"] == pytest.approx(0.5 * 0.64, rel=1e-6)


def test_battle_sheep_per_cell_layout_matches_the_codec():
    from training.networks import action_layout

    game = envs.make_game("battle_sheep", canvas_radius=7)
    layout = action_layout(game)
    assert layout.shape == (game.num_actions, 2)
    pairs = layout[:, 1] * 10_000 + layout[:, 0]
    assert len(np.unique(pairs)) == game.num_actions  # one (cell, channel) per action
    square = game.grid.square_index
    rng = np.random.default_rng(0)
    for action in rng.integers(game.num_actions, size=300):
        kind, cell, b, k = game.codec.decode(int(action))
        assert layout[action, 0] == square[cell]
        expected = {"tile": b, "stack": 3, "move": 4 + b * 15 + k - 1}[kind]
        assert layout[action, 1] == expected


@pytest.mark.parametrize("width", [23, 300])  # a dense distribution (<= DENSE_ACTIONS), a gathered one
def test_masked_distribution_equals_the_dense_masked_softmax(width: int):
    gen = torch.Generator().manual_seed(4)
    logits = torch.randn(16, width, generator=gen, requires_grad=True)
    mask = torch.rand(16, width, generator=gen) < torch.linspace(0.01, 0.9, 16)[:, None]
    mask[:, 7] = True
    dense = torch.log_softmax(logits.masked_fill(~mask, -math.inf), dim=-1)
    dist = MaskedCategorical(logits, mask)
    actions = torch.multinomial(mask.float(), 1, generator=gen).squeeze(-1)
    torch.testing.assert_close(dist.log_prob(actions), dense.gather(1, actions[:, None]).squeeze(-1))
    torch.testing.assert_close(dist.probs, dense.exp())
    dense_entropy = -(dense.exp() * dense.masked_fill(~mask, 0.0)).sum(-1)
    torch.testing.assert_close(dist.entropy(), dense_entropy)
    assert torch.isinf(dist.log_prob(torch.full((16,), width - 1))[~mask[:, width - 1]]).all()
    assert torch.isinf(dist.log_prob(torch.full((16,), width))).all()  # out of range: never chosen
    (dist.log_prob(actions).sum() + dist.entropy().sum()).backward()
    assert (logits.grad[~mask] == 0).all()  # illegal logits get no gradient


def test_a_dense_distribution_draws_what_the_gathered_one_draws(monkeypatch: pytest.MonkeyPatch):
    """The two builds of :class:`MaskedCategorical` are one distribution: the same draws from the same generator,
    the same log-probabilities, entropies and modes."""
    import training.distribution as distribution

    gen = torch.Generator().manual_seed(11)
    logits = torch.randn(256, 23, generator=gen) * 3
    mask = torch.rand(256, 23, generator=gen) < 0.3
    mask[torch.arange(256), torch.randint(0, 23, (256,), generator=gen)] = True
    dense = MaskedCategorical(logits, mask)
    monkeypatch.setattr(distribution, "DENSE_ACTIONS", 0)
    gathered = MaskedCategorical(logits, mask)
    assert dense.dense and not gathered.dense
    draws = [d.sample(torch.Generator().manual_seed(5)) for d in (dense, gathered)]
    assert torch.equal(draws[0], draws[1])
    torch.testing.assert_close(dense.log_prob(draws[0]), gathered.log_prob(draws[0]))
    torch.testing.assert_close(dense.entropy(), gathered.entropy())
    assert torch.equal(dense.mode(), gathered.mode())


def test_global_planes_as_a_first_layer_bias_equal_their_convolution_inside_the_border():
    """``global_input="bias"`` feeds the constant planes to the first layer through one linear map: with its weights
    set to the 3x3 sums of a ``"conv"`` net's weights on those planes, the first layer's pre-activations agree on
    every square off the plane's border (where the convolution's zero padding does not reach), on real positions;
    and a spec without the key (older checkpoints) keeps every plane in the convolution."""
    from envs.bestiarium.rules import BestiariumGame
    from training.config import make_config
    from training.networks import build_network, network_spec

    game = BestiariumGame()
    spec = network_spec(make_config("bestiarium"), game)
    g = spec["global_planes"]
    by_conv = build_network({**spec, "global_input": "conv"}, game)
    by_bias = build_network(spec, game)
    old = build_network({k: v for k, v in spec.items() if k != "global_input"}, game)
    assert by_bias.global_bias is not None and by_conv.global_bias is None and old.global_bias is None
    assert old.trunk[0].conv.in_channels == game.observation_shape[0] == by_bias.trunk[0].conv.in_channels + g
    rng = np.random.default_rng(0)
    state, positions = game.initial_state(), []
    for _ in range(30):
        positions.append(game.observation(state, game.current_player(state)))
        game.apply(state, int(rng.choice(game.legal_actions(state))), rng)
    obs = torch.from_numpy(np.stack(positions))
    conv = by_conv.trunk[0].conv
    with torch.no_grad():
        by_bias.trunk[0].conv.weight.copy_(conv.weight[:, :-g])
        by_bias.trunk[0].conv.bias.copy_(conv.bias)
        by_bias.global_bias.weight.copy_(conv.weight[:, -g:].sum(dim=(2, 3)))
        by_bias.global_bias.bias.zero_()
        full = conv(obs)
        split = by_bias.trunk[0].conv(obs[:, :-g]) + by_bias.global_bias(obs[:, -g:].mean(dim=(2, 3)))[:, :, None, None]
    inside = (slice(None), slice(None), slice(1, -1), slice(1, -1))
    assert torch.allclose(full[inside], split[inside], atol=1e-4)
    assert not torch.allclose(full, split, atol=1e-4)  # the border differs: the padding's zeros are not constants


def test_conv_net_reads_the_global_planes_into_its_value_head():
    """Bestiarium's spec asks for its 38 constant planes as a vector; with the trunk silenced, the value still
    follows them (the head reads them directly), and a spec without the key (older checkpoints) has none."""
    from envs.bestiarium.observation import NUM_GLOBAL_PLANES, VERDICT
    from envs.bestiarium.rules import BestiariumGame
    from training.config import make_config
    from training.networks import build_network, network_spec

    game = BestiariumGame(board_size=5)
    spec = network_spec(make_config("bestiarium"), game)
    assert spec["global_planes"] == NUM_GLOBAL_PLANES == 38
    assert spec["global_input"] == "bias"
    net = build_network(spec, game)
    with torch.no_grad():
        net.global_bias.weight.zero_()
        net.global_bias.bias.zero_()
        for layer in net.trunk:
            layer.conv.weight.zero_()
            layer.conv.bias.zero_()
            layer.pool_bias.weight.zero_()
            layer.pool_bias.bias.zero_()
    obs = torch.from_numpy(np.stack([game.observation(game.initial_state(), 0)] * 2))
    obs[1, VERDICT] = 1.0
    _, value, _ = net.scores(obs)
    assert value[0] != value[1]
    old = {k: v for k, v in spec.items() if k not in ("global_planes", "global_input")}
    assert build_network(old, game).global_planes == 0
    with pytest.raises(ValueError, match="global_planes"):
        build_network({**spec, "global_planes": 99}, game)
    sheep = envs.make_game("battle_sheep")
    assert "global_planes" not in network_spec(make_config("battle_sheep"), sheep)


@pytest.mark.parametrize("width", [4, 100])
def test_draws_follow_the_masked_probabilities(width: int):
    """200,000 draws of one row land on each legal action at its probability (within 0.005), never elsewhere."""
    logits = torch.zeros(200_000, width)
    logits[:, :4] = torch.tensor([0.0, 1.0, 2.0, 0.5])
    mask = torch.zeros(200_000, width, dtype=torch.bool)
    mask[:, [0, 2, 3]] = True
    dist = MaskedCategorical(logits, mask)
    share = torch.bincount(dist.sample(torch.Generator().manual_seed(0)), minlength=width).float() / 200_000
    assert share[1] == 0 and share[4:].sum() == 0
    torch.testing.assert_close(share, dist.probs[0], atol=0.005, rtol=0)


def test_the_rollouts_numpy_draw_follows_the_masked_softmax():
    """``draw_dense`` (the workers' draw where a game has few actions): legal actions only, each at its softmax
    probability over the legal ones (200,000 draws, within 0.005), the log-probability of the drawn action, the
    same draws for the same generator seed, and a clear error for a row without a legal action."""
    from training.distribution import draw_dense

    logits = torch.tensor([[0.0, 1.0, 2.0, 0.5, 9.0]]).repeat(200_000, 1)
    legal = np.zeros((200_000, 5), dtype=bool)
    legal[:, [0, 2, 3]] = True
    actions, logp = draw_dense(logits, legal, torch.Generator().manual_seed(3))
    expected = torch.softmax(torch.tensor([0.0, 2.0, 0.5], dtype=torch.float64), 0).numpy()
    share = np.bincount(actions, minlength=5) / len(actions)
    assert share[1] == 0 and share[4] == 0
    np.testing.assert_allclose(share[[0, 2, 3]], expected, atol=0.005)
    np.testing.assert_allclose(logp, np.log(expected)[np.searchsorted([0, 2, 3], actions)], rtol=1e-12)
    again, _ = draw_dense(logits, legal, torch.Generator().manual_seed(3))
    assert np.array_equal(actions, again)
    legal[7] = False
    with pytest.raises(ValueError, match="no legal action"):
        draw_dense(logits, legal, torch.Generator().manual_seed(3))
