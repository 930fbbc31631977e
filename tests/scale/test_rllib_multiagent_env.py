"""The RLlib multi-agent env and RLModule over every registered game (no Ray cluster needed: plain objects)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

import envs  # noqa: E402
from envs.common.game import ConfigError, IllegalActionError  # noqa: E402
from training.checkpoint import load_policy  # noqa: E402
from training.config import make_config  # noqa: E402
from training.networks import network_spec  # noqa: E402
from training.scale.rllib_env import MASK_KEY, OBS_KEY, BarnyardMultiAgentEnv, parse_mix  # noqa: E402


def play(env: BarnyardMultiAgentEnv, seed: int, rng: np.random.Generator, max_steps: int = 5000) -> dict:
    """One game with uniformly random legal actions; checks RLlib's conventions at every step."""
    obs, _ = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    trace = []
    for _ in range(max_steps):
        assert obs, "a live game always has an agent to act"
        for agent, o in obs.items():
            assert set(o) == {OBS_KEY, MASK_KEY}
            assert env.observation_spaces[agent].contains(o), agent
            assert o[MASK_KEY].any(), f"{agent} has no legal action"
        actions = {a: int(rng.choice(np.flatnonzero(o[MASK_KEY]))) for a, o in obs.items()}
        trace.append(actions)
        obs, rewards, terms, truncs, _ = env.step(actions)
        for agent, r in rewards.items():
            totals[agent] += r
        if terms["__all__"] or truncs["__all__"]:
            return {"totals": totals, "final": obs, "terms": terms, "trace": trace}
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", envs.GAMES)
def test_every_game_plays_to_the_end_with_the_engine_returns(game):
    """Random legal play: rewards add up to the engine's returns (zero-sum), every agent gets its last observation
    and the end flag; turn-based games show only the mover, Boaring's bids every seat at once."""
    env = BarnyardMultiAgentEnv({"game": game})
    rng = np.random.default_rng(0)
    info = envs.game_info(game)
    for seed in range(2):
        out = play(env, seed, rng)
        returns = env.game.returns(env._par.game_state if env._par is not None else env._aec.game_state)
        assert [out["totals"][a] for a in env.possible_agents] == pytest.approx(list(returns))
        assert sum(out["totals"].values()) == pytest.approx(0.0, abs=1e-9)
        assert set(out["final"]) == set(env.possible_agents)
        assert all(out["terms"][a] for a in env.possible_agents)
        sizes = {len(step) for step in out["trace"]}
        if info.parallel:
            assert env.num_players in sizes  # the simultaneous bids
        else:
            assert sizes == {1}


@pytest.mark.parametrize("game", envs.GAMES)
@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_score_shaping_is_potential_based_per_agent(game, gamma):
    """With ``score_shaping``, each agent's shaping (the shaped run's rewards less the unshaped run's, same seed and
    actions), discounted over its own decisions, sums to ``-Phi(its first decision)``: the objective stays the
    game's result, as in ``barnyard train`` (training/ppo/credit.py)."""
    shaped = BarnyardMultiAgentEnv({"game": game, "score_shaping": 0.2, "gamma": gamma})
    plain = BarnyardMultiAgentEnv({"game": game})
    rng = np.random.default_rng(1)
    nonzero = 0.0
    for seed in range(2):
        obs, _ = shaped.reset(seed=seed)
        obs_plain, _ = plain.reset(seed=seed)
        decisions = dict.fromkeys(shaped.possible_agents, -1)  # each agent's decision count so far - 1
        first_phi: dict[str, float] = {}
        discounted = dict.fromkeys(shaped.possible_agents, 0.0)
        while True:
            assert obs.keys() == obs_plain.keys()
            for agent in obs:
                decisions[agent] += 1
                first_phi.setdefault(agent, shaped._potential_at[agent])
            actions = {a: int(rng.choice(np.flatnonzero(o[MASK_KEY]))) for a, o in obs.items()}
            obs, rewards, terms, truncs, _ = shaped.step(actions)
            obs_plain, rewards_plain, *_ = plain.step(actions)
            for agent, r in rewards.items():
                extra = r - rewards_plain.get(agent, 0.0)
                # what an agent is paid until its next decision belongs to its latest one
                discounted[agent] += gamma ** max(decisions[agent], 0) * extra
                nonzero += abs(extra)
            if terms["__all__"] or truncs["__all__"]:
                break
        assert terms["__all__"], "random play ends these games before the ply cap"
        for agent in shaped.possible_agents:
            assert discounted[agent] == pytest.approx(-first_phi[agent], abs=1e-9), agent
    assert nonzero > 0, "the scores moved, so the shaping paid something"


def test_score_shaping_and_gamma_are_checked():
    with pytest.raises(ConfigError, match="score_shaping"):
        BarnyardMultiAgentEnv({"game": "bestiarium", "score_shaping": -1})
    with pytest.raises(ConfigError, match="gamma"):
        BarnyardMultiAgentEnv({"game": "bestiarium", "gamma": 1.5})


def test_boaring_turn_by_turn_and_simultaneous_give_one_mover_or_all():
    simultaneous = BarnyardMultiAgentEnv({"game": "boaring", "options": {"num_players": 3}})
    obs, _ = simultaneous.reset(seed=3)
    assert set(obs) == set(simultaneous.possible_agents)
    turns = BarnyardMultiAgentEnv({"game": "boaring", "options": {"num_players": 3}, "simultaneous": False})
    obs, _ = turns.reset(seed=3)
    assert len(obs) == 1


@pytest.mark.parametrize("game", envs.GAMES)
def test_same_seed_same_game(game):
    a, b = (BarnyardMultiAgentEnv({"game": game, "seed": 11}) for _ in range(2))
    out_a = play(a, 5, np.random.default_rng(1))
    out_b = play(b, 5, np.random.default_rng(1))
    assert out_a["trace"] == out_b["trace"] and out_a["totals"] == out_b["totals"]


def first_position_with_an_illegal_action(env: BarnyardMultiAgentEnv) -> tuple[str, int]:
    """Play random legal moves from seed 0 until the mover has an illegal action; ``(mover, that action)``."""
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        ((mover, o),) = obs.items()
        if not o[MASK_KEY].all():
            return mover, int(np.flatnonzero(o[MASK_KEY] == 0)[0])
        obs, *_ = env.step({mover: int(rng.choice(np.flatnonzero(o[MASK_KEY])))})


def test_illegal_action_raise_changes_nothing_and_lose_ends_the_game():
    env = BarnyardMultiAgentEnv({"game": "beasty_borders", "illegal_action": "raise"})
    mover, illegal = first_position_with_an_illegal_action(env)
    before = env.game.state_to_json(env._aec.game_state)
    with pytest.raises(IllegalActionError):
        env.step({mover: illegal})
    assert env.game.state_to_json(env._aec.game_state) == before
    with pytest.raises(IllegalActionError, match="only"):
        env.step({a: 0 for a in env.possible_agents})  # a seat that is not to move
    with pytest.raises(ValueError, match="unknown agent"):
        env.step({"player_9": 0})
    losing = BarnyardMultiAgentEnv({"game": "beasty_borders"})  # "lose" is the default (RLlib's env check)
    mover, illegal = first_position_with_an_illegal_action(losing)
    _, rewards, terms, _, _ = losing.step({mover: illegal})
    assert rewards[mover] == -1.0 and terms["__all__"]
    assert sum(rewards.values()) == pytest.approx(0.0)


def test_bad_config_is_refused_with_its_reason():
    with pytest.raises(ConfigError, match="needs 'game'"):
        BarnyardMultiAgentEnv({})
    with pytest.raises(ConfigError, match="unknown env_config"):
        BarnyardMultiAgentEnv({"game": "bestiarium", "colour": "red"})
    with pytest.raises(ConfigError, match="no simultaneous"):
        BarnyardMultiAgentEnv({"game": "bestiarium", "simultaneous": True})
    with pytest.raises(ConfigError, match="turn by turn"):
        BarnyardMultiAgentEnv({"game": "boaring", "scripted": {"fraction": 0.5, "mix": "greedy:1"}})
    with pytest.raises(ValueError, match="weight"):
        parse_mix("greedy:x")
    with pytest.raises(ValueError):
        BarnyardMultiAgentEnv({"game": "bestiarium", "scripted": {"fraction": 0.5, "mix": "nobody:1"}})


@pytest.mark.parametrize("game", ["bestiarium", "boaring"])
def test_scripted_seats_never_reach_rllib(game):
    """With every game scripted, one seat per game is RLlib's and the rest are played inside the env."""
    env = BarnyardMultiAgentEnv(
        {"game": game, "simultaneous": False, "scripted": {"fraction": 1.0, "mix": "greedy:1,random:1"}}
    )
    rng = np.random.default_rng(2)
    learners = set()
    for seed in range(4):
        out = play(env, seed, rng)
        seen = {a for step in out["trace"] for a in step}
        assert len(seen) == 1
        assert set(out["final"]) == seen
        learners |= seen
    assert len(learners) > 1  # the learner's seat is drawn per game


@pytest.mark.parametrize("game", envs.GAMES)
def test_module_is_barnyards_network_and_never_picks_an_illegal_action(game, tmp_path):
    """The RLModule holds the network ``barnyard train`` builds for the game; masked-out logits are the float
    minimum, so sampling from them never draws an illegal action; the export loads as a Barnyard policy."""
    from ray.rllib.core.columns import Columns

    from training.scale.rllib_module import BarnyardRLModule, export_policy, module_spec

    env = BarnyardMultiAgentEnv({"game": game})
    spec = module_spec(game)
    spec.observation_space = env.observation_spaces["player_0"]
    spec.action_space = env.action_spaces["player_0"]
    module = spec.build()
    assert isinstance(module, BarnyardRLModule)
    assert module.network_spec == network_spec(make_config(game), envs.make_game(game))
    obs, _ = env.reset(seed=1)
    batch_obs = [o for o in obs.values()]
    batch = {Columns.OBS: {key: torch.from_numpy(np.stack([o[key] for o in batch_obs])) for key in (OBS_KEY, MASK_KEY)}}
    with torch.no_grad():
        out = module.forward_exploration(batch)
        values = module.compute_values(batch)
    logits = out[Columns.ACTION_DIST_INPUTS]
    legal = batch[Columns.OBS][MASK_KEY] > 0
    assert logits.shape == legal.shape and values.shape == (len(batch_obs),)
    assert torch.all(logits[~legal] == torch.finfo(torch.float32).min)
    draws = torch.distributions.Categorical(logits=logits).sample((200,))
    assert bool(legal.gather(1, draws.T).all())
    path = export_policy(module, tmp_path / "policy")
    policy = load_policy(path, game)
    assert policy is not None


def test_exported_policy_plays_in_barnyard_evaluate(tmp_path):
    from training.scale.rllib_module import export_policy, module_spec

    env = BarnyardMultiAgentEnv({"game": "beasty_borders"})
    spec = module_spec("beasty_borders", train={"hidden": 32})
    spec.observation_space, spec.action_space = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    path = export_policy(spec.build(), tmp_path / "policy")
    result = subprocess.run(
        [sys.executable, "-m", "training", "evaluate", "--game", "beasty_borders", "--policies", str(path), "random"]
        + ["--games", "4", "--workers", "1", "--out", str(tmp_path / "eval")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "policy.pt | random | 4 |" in result.stdout


def test_import_envs_and_training_do_not_import_ray():
    code = "import sys, envs, training, training.config, training.ppo.loop; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("game", envs.GAMES)
def test_league_recipe_is_barnyard_trains(game):
    """The league's defaults are ``barnyard train``'s for the game: its PPO settings, its shaping, and its opponent
    mix, split so that the shares of scripted and league games over all games are the mix's."""
    from training.scale.league import barnyard_recipe

    config = make_config(game)
    recipe = barnyard_recipe(game)
    assert (recipe["lr"], recipe["gamma"], recipe["lambda_"], recipe["batch"], recipe["minibatch"]) == (
        config.learning_rate,
        config.gamma,
        config.gae_lambda,
        config.batch_size,
        config.minibatch_size,
    )
    assert recipe["score_shaping"] == config.score_shaping
    weights = parse_mix(config.opponent_mix)
    scripted = recipe["scripted"]["fraction"] if recipe["scripted"] else 0.0
    assert scripted == pytest.approx(config.opponent_fraction * (1 - weights.get("snapshot", 0.0)))
    league = (1 - scripted) * recipe["snapshot_fraction"]
    assert league == pytest.approx(config.opponent_fraction * weights.get("snapshot", 0.0))
    if recipe["scripted"]:
        assert sum(recipe["scripted"]["mix"].values()) == pytest.approx(1.0)
        assert "snapshot" not in recipe["scripted"]["mix"]
    assert barnyard_recipe(game, {"learning_rate": 1e-4, "opponent_fraction": 0.0})["scripted"] is None
