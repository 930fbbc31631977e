"""The PPO collector on a game's batched engine (BatchedSlots) against the same collector on the reference engine.

The two engines draw chance from different generators, so the reference side plays *shadow* envs: the game's own
raw AEC env (its books, rewards, truncation, observations and legal masks all the reference's), whose engine state
is dealt and moved on by a one-row batched engine (:func:`shadow_env`): each position is the batched row turned
into a reference state. Both collectors then see the same games, and with the same controllers and the same
network they must produce the same transitions bit for bit: observations, masks, actions, log-probabilities,
values, rewards (shaping included), dones, bootstraps at cuts, and the same episode records.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import envs
from envs.common.fastrng import seed_states
from envs.common.vector import BatchedGame, batched_game_class
from training.config import make_config
from training.networks import build_network, network_spec
from training.ppo.batched_slots import BatchedSlots
from training.ppo.buffer import RolloutBuffer
from training.ppo.collect import SelfPlayCollector
from training.ppo.envworkers import resolve_workers
from training.ppo.loop import train
from training.ppo.slots import GameSlots, resolve_engine
from training.train_cli import main as train_main

BATCHED_GAMES = [g for g in envs.GAMES if batched_game_class(g) is not None]


class ShadowGame:
    """The reference game, except that the env's own position is dealt and moved by a one-row batched engine."""

    def __init__(self, env: Any, reference: Any, engine: Any):
        self._env, self._reference, self.engine = env, reference, engine
        self.row = engine.new_state(1)
        self.max_game_length = engine.max_game_length

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reference, name)

    def initial_state(self, rng: Any) -> Any:
        self.engine.reset_rows(self.row, np.array([0]))
        return self.engine.to_reference(self.row, 0)

    def apply(self, state: Any, action: int, *rng: Any) -> None:
        if state is not self._env.game_state:  # a policy's own look-ahead: the reference engine
            self._reference.apply(state, action, *rng)
            return
        self.engine.apply(self.row, np.array([action], dtype=np.int64))
        self._env.game_state = self.engine.to_reference(self.row, 0)


def shadow_env(game: str, max_game_length: int | None = None) -> Any:
    """A raw-env factory of ``game`` whose positions come from its batched engine (module docstring); its ply cap
    (``max_game_length``, both engines alike) can be lowered to cut games."""
    base = envs.module(game).raw_env

    class Shadow(base):  # type: ignore[misc, valid-type]
        def __init__(self, **options: Any):
            super().__init__(**options)
            engine = batched_engine(game, max_game_length)(**options)
            self.game = ShadowGame(self, self.game, engine)

        def reset(self, seed: int | None = None, options: dict | None = None) -> None:
            if seed is not None:  # as BatchedSlots seeds an env's row
                self.game.row.rng[0] = seed_states(seed, 1)[0]
            super().reset(seed=seed, options=options)

    return Shadow


def python_greedy(cls: type) -> type:
    """``cls`` without its compiled greedy: BatchedSlots then plays greedy seats with the Python GreedyPolicy, as
    the reference collector does (the compiled greedy draws its samples from other generators)."""
    if not cls.has_greedy_actions:
        return cls
    return type(
        f"{cls.__name__}PythonGreedy",
        (cls,),
        {"greedy_actions": BatchedGame.greedy_actions, "has_greedy_actions": False},
    )


def batched_engine(game: str, max_game_length: int | None = None, compiled_greedy: bool = True) -> Any:
    """The game's batched-engine class, with a lower ply cap if asked (``compiled_greedy`` False: the Python
    greedy plays its greedy seats)."""
    cls = batched_game_class(game) if compiled_greedy else python_greedy(batched_game_class(game))

    def make(**options: Any) -> Any:
        engine = cls(**options)
        if max_game_length is not None:
            engine.max_game_length = max_game_length
        return engine

    return make


def collector_pair(game: str, cap: int | None = None, **overrides: Any) -> tuple[SelfPlayCollector, ...]:
    """A reference collector over shadow envs and a batched one, same config, same network, same generator."""
    config = make_config(
        game,
        **{
            "num_envs": 3,
            "num_workers": 0,
            "hidden": 16,
            "mlp_layers": 1,
            "conv_channels": 4,
            "conv_layers": 1,
            **overrides,
        },
    )
    reference_game = envs.make_game(game, **config.env_options)
    pair = []
    for hooks in ({"make_env": shadow_env(game, cap)}, {"make_engine": batched_engine(game, cap, False)}):
        torch.manual_seed(0)
        net = build_network(network_spec(config, reference_game), reference_game)
        pair.append(SelfPlayCollector(config, net, torch.Generator().manual_seed(1), **hooks))
    return tuple(pair)


def transitions(buffer: RolloutBuffer) -> list[tuple]:
    return [
        (
            key,
            t.obs.tobytes(),
            t.packed_mask.tobytes(),
            t.action,
            t.logp,
            t.value,
            t.reward,
            t.done,
            t.next_value,
            t.potential,
            t.cut,
        )
        for key, stream in sorted(buffer.streams.items())
        for t in stream
    ]


def assert_same_collection(
    reference: SelfPlayCollector, batched: SelfPlayCollector, target: int, episodes: int = 2
) -> list[tuple]:
    """Both collect ``target`` samples, and more until ``episodes`` more games have ended; everything equal."""
    assert reference.engine == "reference" and batched.engine == "batched"
    a, b = RolloutBuffer(1), RolloutBuffer(1)
    goal = reference.episodes + episodes
    while len(a) < target or reference.episodes < goal:
        reference.collect(a, len(a) + 1)
        batched.collect(b, len(b) + 1)
    ta, tb = transitions(a), transitions(b)
    assert len(ta) >= target and len(ta) == len(tb)
    for x, y in zip(ta, tb):
        assert x == y
    assert reference.episodes == batched.episodes >= goal
    assert list(reference.lengths) == list(batched.lengths)
    assert {k: list(v) for k, v in reference.results.items()} == {k: list(v) for k, v in batched.results.items()}
    assert reference.controllers == batched.controllers
    return ta


@pytest.mark.parametrize("game", BATCHED_GAMES)
def test_batched_collector_gives_the_reference_collectors_transitions(game: str):
    """Self-play, snapshot and greedy games with the game's default shaping: every transition equal."""
    reference, batched = collector_pair(
        game, opponent_fraction=0.6, opponent_mix="snapshot:1,greedy:1", snapshot_every=1
    )
    got = assert_same_collection(reference, batched, 120)
    shaping = make_config(game).score_shaping
    if shaping:
        assert any(t[9] != 0.0 for t in got)  # potentials were paid
    kinds = {c for row in reference.controllers for c in row}
    assert kinds  # the controllers drawn so far are the same on both sides (checked above)
    # snapshot seats play too: a snapshot added and more collected, still equal
    for collector in (reference, batched):
        collector.add_snapshot(collector.net)
    assert_same_collection(reference, batched, 80)


@pytest.mark.parametrize("game", BATCHED_GAMES)
def test_batched_collector_bootstraps_cut_games_as_the_reference_does(game: str):
    """A ply cap of 9 cuts the games (all of them in the games whose shortest game is longer; a short game of Pig
    ends before it): each learner seat's pending transition is completed with its own value at the cut and gamma *
    the potential there, not done; the same on both engines."""
    reference, batched = collector_pair(game, cap=9, score_shaping=0.3, opponent_fraction=0.5, opponent_mix="greedy:1")
    got = assert_same_collection(reference, batched, 120)
    cuts = [t for t in got if t[10]]
    assert cuts and not any(t[7] for t in cuts)  # a cut game's transitions are not done
    assert all(t[8] != 0.0 for t in cuts)  # bootstrapped on a value
    assert all(0 < e <= 9 for e in reference.lengths) and 9 in set(reference.lengths)  # games end or are cut at 9


def checking_engine(game: str, played: list) -> Any:
    """The game's batched engine, asserting that every action applied to a live row is legal (and recording it)."""
    cls = batched_game_class(game)

    class Checking(cls):  # type: ignore[misc, valid-type]
        def apply(self, state: Any, actions: np.ndarray) -> None:
            mask = np.zeros((len(actions), self.num_actions), dtype=bool)
            self.legal_mask(state, mask)
            live = self.current_player(state) >= 0
            assert mask[np.flatnonzero(live), actions[live]].all(), "an illegal action"
            played.extend(actions[live].tolist())
            super().apply(state, actions)

    return Checking


@pytest.mark.parametrize("game", BATCHED_GAMES)
def test_random_seats_draw_legal_actions_per_env_reproducibly(game: str):
    played: list = []
    args = (game, {}, [11, 12, 13], 1.0, {"random": 1.0}, 0.0)
    one = BatchedSlots(*args, make_engine=checking_engine(game, played))
    two = BatchedSlots(*args)
    r1, r2 = one.reset(), two.reset()
    for _ in range(60):
        assert r1.kinds == ["learner"] * 3  # the other seats are played inside the slots
        actions = np.array([np.flatnonzero(m)[-1] for m in r1.masks])
        r1, r2 = one.step(actions), two.step(actions)
        assert r1.obs.tobytes() == r2.obs.tobytes() and r1.masks.tobytes() == r2.masks.tobytes()
    assert np.array_equal(one.random_rng, two.random_rng)
    assert len(played) > 3 * 60 * (one.n - 1) // 2  # the random seats moved
    assert len(set(played)) > min(3, r1.masks.shape[1] - 1)  # not one fixed choice (Pig has 2 actions)
    # one env's games do not depend on the others': the same seed alone gives the same first position
    alone = BatchedSlots(game, {}, [12], 1.0, {"random": 1.0}, 0.0).reset()
    fresh = BatchedSlots(*args).reset()
    assert alone.obs[0].tobytes() == fresh.obs[1].tobytes()


@pytest.mark.parametrize("game", BATCHED_GAMES)
def test_batched_slots_state_round_trip_continues_exactly(game: str):
    args = (game, {}, [3, 4], 0.7, {"random": 0.5, "greedy": 0.5}, 0.2)
    straight, first = BatchedSlots(*args), BatchedSlots(*args)

    def play(slots: BatchedSlots, report: Any, steps: int, seed: int) -> tuple[Any, list]:
        rng = np.random.default_rng(seed)
        seen = []
        for _ in range(steps):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in report.masks])
            report = slots.step(actions)
            seen.append(
                (
                    report.obs.tobytes(),
                    report.masks.tobytes(),
                    report.rewards.tolist(),
                    report.potential.tolist(),
                    report.ended.tolist(),
                    report.kinds,
                    report.new_controllers,
                    report.episodes,
                )
            )
        return report, seen

    ra, _ = play(straight, straight.reset(), 30, 0)
    rb, _ = play(first, first.reset(), 30, 0)
    resumed = BatchedSlots(*args)
    rr = resumed.set_state(json.loads(json.dumps(first.get_state())))
    assert rr.obs.tobytes() == ra.obs.tobytes() and rr.masks.tobytes() == ra.masks.tobytes()
    _, a = play(straight, ra, 200, 5)
    _, b = play(resumed, rr, 200, 5)
    assert a == b
    assert sum(len(x[-1]) for x in a) >= 2  # games ended and restarted after the restore
    reference = GameSlots(*args)
    reference.reset()
    with pytest.raises(ValueError, match="resume with --engine reference"):
        resumed.set_state(reference.get_state())
    with pytest.raises(ValueError, match="resume with --engine batched"):
        reference.set_state(first.get_state())


GREEDY_GAMES = [g for g in BATCHED_GAMES if batched_game_class(g).has_greedy_actions]


@pytest.mark.parametrize("game", GREEDY_GAMES)
def test_compiled_greedy_seats_are_per_env_seeded_and_resume_exactly(game: str):
    """Greedy seats play the engine's compiled greedy_actions (no Python policy is built) from a generator per
    env seeded per game: an env's games do not depend on the other envs, and a group saved mid-game and restored
    continues exactly (its greedy generators included); a state saved before the compiled greedy still loads."""
    calls: list[int] = []

    class Recording(batched_game_class(game)):  # type: ignore[misc, valid-type]
        def greedy_actions(self, state: Any, rng: np.ndarray, out: np.ndarray) -> None:
            calls.append(len(out))
            super().greedy_actions(state, rng, out)

    args = (game, {}, [21, 22, 23], 1.0, {"greedy": 1.0}, 0.0)
    slots = BatchedSlots(*args, make_engine=Recording)
    alone = BatchedSlots(game, {}, [22], 1.0, {"greedy": 1.0}, 0.0)
    report, single = slots.reset(), alone.reset()
    resumed = saved = None
    seen, again, ended = [], [], 0
    for step in range(400):
        assert report.kinds == ["learner"] * 3
        assert report.obs[1].tobytes() == single.obs[0].tobytes()
        actions = np.array([np.flatnonzero(m)[step % 2 - 1] for m in report.masks])
        if step == 30:
            saved = json.loads(json.dumps(slots.get_state()))
            resumed = BatchedSlots(*args)
            again.append(resumed.set_state(saved).obs.tobytes())
            seen.append(report.obs.tobytes())
        report, single = slots.step(actions), alone.step(actions[1:2])
        if resumed is not None:
            ended += len(report.episodes)
            seen.append(report.obs.tobytes())
            again.append(resumed.step(actions).obs.tobytes())
    assert seen == again and ended >= 6  # games ended and restarted after the restore
    assert calls and all(p is None for p in slots.greedy)
    assert not np.array_equal(slots.greedy_rng, alone.greedy_rng[[0, 0, 0]])
    del saved["greedy_rng"]
    BatchedSlots(*args).set_state(saved)


def test_engine_choice():
    game = BATCHED_GAMES[0]
    assert resolve_engine(game, "auto") == "batched" and resolve_engine(game, "reference") == "reference"
    plain = [g for g in envs.GAMES if g not in BATCHED_GAMES]
    for other in plain:
        assert resolve_engine(other, "auto") == "reference"
        with pytest.raises(ValueError, match="no batched engine"):
            resolve_engine(other, "batched")
    with pytest.raises(ValueError, match="allowed"):
        resolve_engine(game, "fast")
    for engine in ("reference", "batched"):  # -1: by machine, whatever the engine
        assert resolve_workers(-1, engine, cores=2) == 2 and resolve_workers(-1, engine, cores=16) == 2
        assert resolve_workers(-1, engine, cores=1) == 0
    assert resolve_workers(1, "batched") == 1
    with pytest.raises(ValueError, match="num_workers"):
        resolve_workers(-2, "batched")


TINY = dict(
    num_envs=4,
    num_steps=16,
    hidden=16,
    mlp_layers=1,
    conv_channels=4,
    conv_layers=1,
    update_epochs=1,
    num_minibatches=2,
    eval_games=2,
    eval_every=0,
    eval_opponents="random",
    opponent_fraction=0.5,
    opponent_mix="snapshot:1,random:1,greedy:1",
    snapshot_every=1,
    pool_size=2,
    progress=False,
    num_workers=0,
    anneal_lr=False,
)


def params(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, weights_only=True)["model"]


@pytest.mark.parametrize("game", BATCHED_GAMES)
def test_tiny_batched_run_is_reproducible_and_resumes_exactly(game: str, tmp_path: Path):
    """A tiny training run on the batched engine: same seed, same weights; a run saved after its first update and
    resumed to 128 samples ends with the weights of the uninterrupted run."""

    def config(name: str, **overrides: Any) -> Any:
        return make_config(game, **{**TINY, "engine": "batched", "out": str(tmp_path / name), **overrides})

    straight = params(train(config("straight", total_steps=128)))
    first = train(config("split", total_steps=64))
    early, again = params(first), params(train(config("again", total_steps=64)))
    assert all(torch.equal(early[k], again[k]) for k in early)
    assert not all(torch.equal(early[k], straight[k]) for k in early)
    with pytest.raises(ValueError, match="resume with --engine batched"):
        train_main(["--resume", str(first.parent), "--total-steps", "128", "--engine", "reference"])
    assert train_main(["--resume", str(first.parent), "--total-steps", "128"]) == 0
    resumed = params(first.parent / "policy.pt")
    assert all(torch.equal(straight[k], resumed[k]) for k in straight)


def test_torch_threads_by_phase():
    from training.workers import thread_counts, usable_cores

    assert thread_counts(-1) == (1, usable_cores())
    assert thread_counts(-1, small_network=True) == (1, 1)  # a small network's update: one thread
    assert thread_counts(3, small_network=True) == (3, 3)  # the user's setting wins
    assert thread_counts(2) == (2, 2) and thread_counts(0) == (0, 0)
    with pytest.raises(ValueError, match="torch_threads"):
        thread_counts(-3)


@pytest.mark.xdist_group("machine")
@pytest.mark.parametrize(
    ("game", "engine", "lag"),
    [("bestiarium", "batched", 0), ("beasty_borders", "reference", 0), ("beasty_borders", "batched", 1)],
)
def test_policy_in_workers_is_reproducible_resumes_exactly_and_stays_on_policy(
    game: str, engine: str, lag: int, tmp_path: Path
):
    """``policy_in_workers``: two env workers choose the network seats' actions themselves. Same seed, same weights;
    a run saved after its first updates and resumed ends with the weights of the uninterrupted run (with
    ``policy_lag`` 1 the save falls while the workers play ahead: the queued reports go into the resume file);
    every transition of a batch carries the log-probability and value that the weights which chose it give its
    observation and action: the learner's current weights (lag 0: the step in flight during an update is chosen
    again with the new weights), or with lag 1 those of the batch before for the steps played during the
    update."""
    base = {**TINY, "engine": engine, "num_workers": 2, "policy_in_workers": True, "num_envs": 4, "policy_lag": lag}

    def config(name: str, **overrides: Any) -> Any:
        return make_config(game, **{**base, "out": str(tmp_path / name), **overrides})

    straight = params(train(config("straight", total_steps=192)))
    again = params(train(config("again", total_steps=192)))
    assert all(torch.equal(straight[k], again[k]) for k in straight)
    first = train(config("split", total_steps=64))
    if lag:
        saved = torch.load(first.parent / "resume.pt", weights_only=True)["collector"]["queue"]
        assert any(saved), "the resume file holds the reports played ahead"
    assert train_main(["--resume", str(first.parent), "--total-steps", "192"]) == 0
    resumed = params(first.parent / "policy.pt")
    assert all(torch.equal(straight[k], resumed[k]) for k in straight)
    other = params(train(config("other", total_steps=192, policy_in_workers=False, policy_lag=0)))
    assert not all(torch.equal(straight[k], other[k]) for k in straight)  # other draws: another run

    cfg = config("collect")
    engine = envs.make_game(game)
    torch.manual_seed(0)
    net = build_network(network_spec(cfg, engine), engine)
    collector = SelfPlayCollector(cfg, net, torch.Generator().manual_seed(0))
    assert collector.policy_in_workers and collector.num_workers == 2 and collector.policy_lag == lag
    before = [copy.deepcopy(net), copy.deepcopy(net)]  # the weights one and two changes ago
    try:
        for update in range(4):
            buffer = RolloutBuffer(engine.num_actions)
            collector.collect(buffer, 64)
            batch = buffer.build(cfg.gamma, cfg.gae_lambda)
            chosen_by = []
            with torch.no_grad():
                from training.distribution import masked_policy

                for weights in (net, *before):
                    dist, values = masked_policy(weights, batch.obs, batch.legal(np.arange(len(batch))))
                    logp = dist.log_prob(batch.actions)
                    chosen_by.append(
                        (torch.isclose(logp, batch.logp, atol=1e-5) & torch.isclose(values, batch.values, atol=1e-5))
                        .float()
                        .mean()
                    )
            # the transitions that carried over from the last batch were chosen by the weights before the change
            if lag == 0 or update == 0:
                assert chosen_by[0] > 0.8, update
            else:
                # most played ahead with the weights before; a step short of a batch, some with these; what a
                # longer batch left in the queue, and decisions that carried over, with those before
                assert chosen_by[1] > 0.6 and sum(chosen_by) > 0.9, update
            before = [copy.deepcopy(net), before[0]]
            for p in net.parameters():  # an "update": new weights for the next collection
                p.data.add_(0.01 * torch.randn_like(p))
            collector.add_snapshot(net)
        assert any(set(c) - {"learner"} for c in collector.controllers)  # opponents sat in some games
    finally:
        collector.close()


def test_policy_lag_by_the_update_threads():
    from training.ppo.envworkers import resolve_policy_lag

    assert resolve_policy_lag(-1, update_threads=1) == 1  # the MLP games' update: one thread, the workers play on
    assert resolve_policy_lag(-1, update_threads=2) == 0
    assert resolve_policy_lag(0, update_threads=1) == 0 and resolve_policy_lag(1, update_threads=4) == 1
    with pytest.raises(ValueError, match="policy_lag"):
        resolve_policy_lag(2, update_threads=1)


@pytest.mark.xdist_group("machine")
def test_a_run_saved_with_the_policy_in_this_process_resumes_with_it_in_the_workers(tmp_path: Path):
    """A run saved with ``policy_in_workers`` off (as every run before it existed) resumes with it on: the
    workers' actors start afresh and get the weights and the pool from the collector."""
    config = make_config(
        "bestiarium",
        **{**TINY, "engine": "batched", "num_workers": 2, "policy_in_workers": False, "total_steps": 64},
        out=str(tmp_path / "old"),
    )
    train(config)
    assert train_main(["--resume", str(tmp_path / "old"), "--total-steps", "128", "--policy-in-workers", "true"]) == 0
    meta = json.loads((tmp_path / "old" / "policy.json").read_text())
    assert meta["steps"] >= 128 and meta["config"]["policy_in_workers"] is True
