"""Search-guided self-play (AlphaZero; Gumbel AlphaZero): the self-play games, the replay buffer, the loss, and the
training loop ``train(config) -> policy checkpoint``.

Read top to bottom:

1. :func:`search_config` - the search (:mod:`training.alphazero.search`) a config asks for.
2. :class:`ReplayBuffer` - searched positions: observation (float16), the legal actions with the search's improved
   policy over them (the policy target), the value target per seat (observer-relative, as the network gives it),
   and whether the board's symmetries hold there; minibatches turned by a random symmetry each.
3. :class:`SelfPlay` - ``num_envs`` games played together: every move, one
   :class:`~training.alphazero.search.BatchedSearch` over all their positions (one forward pass per simulation
   step); the search's choice is played, its improved policy is the position's policy target, and when a game
   ends the result (optionally mixed with the search's value) becomes the value target of each of its positions.
   Forced moves (one legal action) are played without search or sample. With ``config.expert``
   (:func:`make_expert`) a scripted baseline plays instead and its move is the (one-hot) policy target.
4. :func:`alphazero_loss` - cross-entropy to the improved policy over the legal actions + ``vf_coef`` x squared
   error of ``tanh(value)`` to the value target.
5. :func:`train` - iterations of ``iteration_moves`` self-play moves per game and the gradient steps owed for the
   previous iteration's positions (each position is trained on ``replay_ratio`` times on average); with
   ``num_workers`` = 1 the games are searched in a worker process (:class:`RemoteActor`) while this process
   takes the gradient steps, so both cores work. Evaluation of the network alone against the baselines,
   ``log.csv``, TensorBoard, ``curve.png``, checkpoints with ``"algo": "alphazero"`` in the sidecar, and exact
   resume.

The network is one of :mod:`training.networks`: its policy head gives the prior logits, its value head ``tanh`` of
each seat's expected return (one output for two-player zero-sum games, one per seat otherwise).
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from envs.common.game import TERMINAL, Game, Symmetry
from envs.common.policies import baseline_policies, decision_from_state, make_baseline
from training.alphazero.search import (
    BatchedSearch,
    NetworkEvaluator,
    SearchConfig,
    SearchStats,
    check_searchable,
    to_relative,
)
from training.config import TrainConfig
from training.distribution import action_positions
from training.run.pieces import resolve_device
from training.workers import PipeWorker, set_threads, thread_counts


# ----- 1. the search --------------------------------------------------------------------------------------------
def search_config(config: TrainConfig, evaluation: bool = False, simulations: int | None = None) -> SearchConfig:
    """The search of ``config`` (``evaluation``: without root noise, as a player)."""
    return SearchConfig(
        kind=config.search,
        simulations=simulations or config.simulations,
        max_considered=config.max_considered,
        gumbel_scale=0.0 if evaluation else 1.0,
        c_visit=config.c_visit,
        c_scale=config.c_scale,
        q_normalisation=config.q_normalisation,
        c_puct=config.c_puct,
        dirichlet_alpha=config.dirichlet_alpha,
        dirichlet_fraction=0.0 if evaluation else config.dirichlet_fraction,
    )


def value_outputs(game: Game) -> int:
    """Value-head outputs: 1 for two players (zero-sum: the other seat's value is the negation), else one per
    seat."""
    return 1 if game.num_players == 2 else game.num_players


# ----- 2. the replay buffer ---------------------------------------------------------------------------------------
@dataclass
class TrainingBatch:
    """A minibatch as tensors: observations, legal actions (padded with 0) and their target probabilities (0 on
    padding), ``valid`` marks real entries, value targets."""

    obs: torch.Tensor
    actions: torch.Tensor
    probs: torch.Tensor
    valid: torch.Tensor
    values: torch.Tensor

    def to(self, device: torch.device) -> TrainingBatch:
        return TrainingBatch(*(t.to(device) for t in (self.obs, self.actions, self.probs, self.valid, self.values)))


class ReplayBuffer:
    """A ring buffer of searched positions (see the module docstring). Arrays grow to ``capacity`` as filled;
    the legal-action width grows to the widest position seen."""

    def __init__(self, capacity: int, obs_shape: Sequence[int], value_outputs: int):
        self.capacity = int(capacity)
        self.obs_shape = tuple(obs_shape)
        self.obs_size = int(np.prod(obs_shape))
        self.value_outputs = value_outputs
        self.obs = np.zeros((0, self.obs_size), dtype=np.float16)
        self.actions = np.zeros((0, 1), dtype=np.int32)
        self.probs = np.zeros((0, 1), dtype=np.float32)
        self.counts = np.zeros(0, dtype=np.int32)
        self.values = np.zeros((0, value_outputs), dtype=np.float32)
        self.symmetric = np.zeros(0, dtype=bool)
        self.size = 0
        self.next = 0
        self.added = 0
        self.symmetries: tuple[Symmetry, ...] = ()
        """The game's symmetries (every symmetric position shares them), set with the first symmetric sample."""
        self.symmetry_source: dict[str, Any] | None = None
        """``state_to_json`` of the position that gave :attr:`symmetries` (to rebuild them on resume)."""

    def __len__(self) -> int:
        return self.size

    def _grow(self, rows: int, width: int) -> None:
        rows = min(self.capacity, max(rows, len(self.obs)))
        width = max(width, self.actions.shape[1])
        if rows == len(self.obs) and width == self.actions.shape[1]:
            return
        old = len(self.obs)

        def grown(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
            out = np.zeros(shape, dtype=array.dtype)
            out[tuple(slice(0, s) for s in array.shape)] = array
            return out

        self.obs = grown(self.obs, (rows, self.obs_size))
        self.actions = grown(self.actions, (rows, width))
        self.probs = grown(self.probs, (rows, width))
        self.counts = grown(self.counts, (rows,))
        self.values = grown(self.values, (rows, self.value_outputs))
        self.symmetric = grown(self.symmetric, (rows,))
        assert len(self.obs) >= old

    def add(self, obs: np.ndarray, actions: np.ndarray, probs: np.ndarray, value: np.ndarray, symmetric: bool) -> None:
        """Store one position (overwriting the oldest once full)."""
        if self.next >= len(self.obs) or len(actions) > self.actions.shape[1]:
            self._grow(max(2 * len(self.obs), 1024) if self.next >= len(self.obs) else len(self.obs), len(actions))
        i = self.next
        k = len(actions)
        self.obs[i] = obs.reshape(-1)
        self.actions[i, :k] = actions
        self.actions[i, k:] = 0
        self.probs[i, :k] = probs
        self.probs[i, k:] = 0.0
        self.counts[i] = k
        self.values[i] = value
        self.symmetric[i] = symmetric
        self.next = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)
        self.added += 1

    def set_symmetries(self, game: Game, state: Any) -> None:
        """Remember the game's symmetries from a position that has them (once)."""
        if not self.symmetries:
            self.symmetries = tuple(game.symmetries(state))
            self.symmetry_source = game.state_to_json(state)

    def batch(self, index: np.ndarray, rng: np.random.Generator, augment: bool) -> TrainingBatch:
        """The positions at ``index``; with ``augment`` each symmetric one turned by a random symmetry."""
        obs = self.obs[index].astype(np.float32)
        actions = self.actions[index].astype(np.int64)
        counts = self.counts[index]
        width = max(1, int(counts.max()))
        actions = actions[:, :width]
        valid = np.arange(width)[None, :] < counts[:, None]
        if augment and self.symmetries:
            turns = np.where(self.symmetric[index], rng.integers(len(self.symmetries), size=len(index)), 0)
            for t in np.unique(turns):
                if t == 0:
                    continue
                rows = np.flatnonzero(turns == t)
                sym = self.symmetries[t]
                obs[rows] = obs[rows][:, sym.observation_source]
                actions[rows] = np.where(valid[rows], sym.actions[actions[rows]], 0)
        return TrainingBatch(
            obs=torch.from_numpy(obs.reshape((len(index),) + self.obs_shape)),
            actions=torch.from_numpy(actions),
            probs=torch.from_numpy(self.probs[index, :width].copy()),
            valid=torch.from_numpy(valid),
            values=torch.from_numpy(self.values[index].copy()),
        )

    def sample(self, batch_size: int, rng: np.random.Generator, augment: bool) -> TrainingBatch:
        """A uniformly drawn minibatch."""
        return self.batch(rng.integers(self.size, size=batch_size), rng, augment)

    def state_dict(self) -> dict[str, Any]:
        n = len(self.obs)
        return {
            "obs": torch.from_numpy(self.obs[:n].copy()),
            "actions": torch.from_numpy(self.actions[:n].copy()),
            "probs": torch.from_numpy(self.probs[:n].copy()),
            "counts": torch.from_numpy(self.counts[:n].copy()),
            "values": torch.from_numpy(self.values[:n].copy()),
            "symmetric": torch.from_numpy(self.symmetric[:n].copy()),
            "size": self.size,
            "next": self.next,
            "added": self.added,
            "symmetry_source": json.dumps(self.symmetry_source),
        }

    def load_state_dict(self, state: dict[str, Any], game: Game) -> None:
        self.obs = state["obs"].numpy().copy()
        self.actions = state["actions"].numpy().copy()
        self.probs = state["probs"].numpy().copy()
        self.counts = state["counts"].numpy().copy()
        self.values = state["values"].numpy().copy()
        self.symmetric = state["symmetric"].numpy().copy()
        self.size, self.next, self.added = int(state["size"]), int(state["next"]), int(state["added"])
        source = json.loads(state["symmetry_source"])
        self.symmetries, self.symmetry_source = (), None
        if source is not None:
            self.set_symmetries(game, game.state_from_json(source))


# ----- 3. self-play -----------------------------------------------------------------------------------------------
Sample = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]
"""A finished position: observation (float16), legal actions, policy target, value target, symmetric."""


def check_expert(game: str, spec: str) -> None:
    """Raise ``ValueError`` unless ``spec`` is empty or ``NAME`` / ``NAME:BUDGET`` of one of ``game``'s baselines."""
    name, _, budget = spec.partition(":")
    table = baseline_policies(game)
    if spec and (name not in table or (budget and not budget.isdigit())):
        raise ValueError(f"expert {spec!r}: choose one of {', '.join(sorted(table))} (optionally NAME:BUDGET)")


def make_expert(game: Game, spec: str, rng: np.random.Generator) -> Any:
    """The game's baseline named by ``spec`` (``search`` or ``search:N``; empty: None), seeded from ``rng``.

    Expert Iteration's apprentice step: the self-play moves and policy targets come from that baseline (for
    Battle Sheep and Bestiarium a compiled MCTS that costs milliseconds a move) instead of the network-guided
    search, so the network learns to play like it; a network-guided run can then start from that network."""
    if not spec:
        return None
    check_expert(game.name, spec)
    policy = make_baseline(game.name, spec, seed=int(rng.integers(1 << 31)), engine=game)
    if not isinstance(getattr(policy, "rng", None), np.random.Generator):
        raise ValueError(f"expert {spec!r} has no seeded generator to save and restore")
    return policy


class SelfPlay:
    """``config.num_envs`` games searched together (see the module docstring). :meth:`play` returns the positions
    of the games that ended; a game's positions wait in :attr:`pending` until its result is known."""

    def __init__(self, game: Game, config: TrainConfig, evaluator: Any, seed: int):
        check_searchable(game)
        self.game = game
        self.config = config
        self.outputs = value_outputs(game)
        self.search = BatchedSearch(game, evaluator, search_config(config), np.random.default_rng([seed, 11]))
        if config.expert and config.value_target_mix:
            raise ValueError("value_target_mix needs the search's values; an expert gives none (set it to 0)")
        self.expert = make_expert(game, config.expert, np.random.default_rng([seed, 15]))
        """The baseline that plays and sets the policy targets instead of the search (``config.expert``), or None."""
        count = config.num_envs
        self.rngs = [np.random.default_rng([seed, 12, g]) for g in range(count)]
        """Per game: its chance (set-up, dice) and nothing else."""
        self.coin = np.random.default_rng([seed, 14])
        """Which moves get the full search (``full_search_fraction``)."""
        self.states = [game.initial_state(rng) for rng in self.rngs]
        self.plies = [0] * count
        self.pending: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int, bool, np.ndarray]]] = [
            [] for _ in range(count)
        ]
        """Per game: its searched positions so far (observation, actions, policy, player, symmetric, value)."""
        self.finished: list[Sample] = []
        self.symmetry_source: dict[str, Any] | None = None
        """``state_to_json`` of the first position with symmetries (they are the game's, shared by all)."""
        self.episodes = 0
        self.lengths: deque[int] = deque(maxlen=200)
        self.first_seat_wins: deque[float] = deque(maxlen=200)
        self.record_seconds = 0.0

    def _over(self, g: int) -> bool:
        state = self.states[g]
        return (
            self.game.current_player(state) == TERMINAL
            or self.game.is_truncated(state)
            or self.plies[g] >= self.game.max_game_length
        )

    def _advance(self, g: int) -> None:
        """Play game ``g``'s forced moves; finish and restart it when it is over, until a real decision."""
        game = self.game
        while True:
            if self._over(g):
                self._finish(g)
                continue
            legal = game.legal_actions(self.states[g])
            if len(legal) > 1:
                return
            game.apply(self.states[g], legal[0], self.rngs[g])
            self.plies[g] += 1

    def _finish(self, g: int) -> None:
        """Turn game ``g``'s positions into samples and start a new game."""
        game, state = self.game, self.states[g]
        returns = np.asarray(game.returns(state), dtype=np.float64)
        mix = self.config.value_target_mix
        for obs, actions, policy, player, symmetric, value in self.pending[g]:
            target = to_relative(returns, player)
            if mix:
                target = (1.0 - mix) * target + mix * to_relative(value, player)
            self.finished.append((obs, actions, policy, target[: self.outputs].astype(np.float32), symmetric))
        self.pending[g] = []
        self.episodes += 1
        self.lengths.append(self.plies[g])
        self.first_seat_wins.append(float(returns[0] > 0 and returns[0] == returns.max()))
        self.states[g] = game.initial_state(self.rngs[g])
        self.plies[g] = 0

    def step(self) -> int:
        """One move in every game, searched with the full budget (and kept as a training position) or, with
        probability ``1 - full_search_fraction``, with ``fast_simulations`` (played, not kept: more games, and so
        more results for the value head, for the same compute; KataGo's playout cap randomisation). Returns the
        number of positions kept."""
        for g in range(len(self.states)):
            self._advance(g)
        cfg = self.config
        if self.expert is not None:
            return self._expert_step()
        temperature = [1.0 if cfg.search == "puct" and p < cfg.temperature_plies else 0.0 for p in self.plies]
        full = (
            [True] * len(self.states)
            if cfg.full_search_fraction >= 1.0
            else list(self.coin.random(len(self.states)) < cfg.full_search_fraction)
        )
        results = self.search.search(
            self.states, temperature, [cfg.simulations if f else cfg.fast_simulations for f in full]
        )
        start = time.perf_counter()
        observations = self.search.last_observations
        kept = 0
        for g, result in enumerate(results):
            state = self.states[g]
            if full[g]:
                player = self.game.current_player(state)
                symmetric = bool(self.game.symmetries(state))
                if symmetric and self.symmetry_source is None:
                    self.symmetry_source = self.game.state_to_json(state)
                self.pending[g].append(
                    (
                        observations[g].astype(np.float16),
                        result.actions.astype(np.int32),
                        result.policy.astype(np.float32),
                        player,
                        symmetric,
                        result.value,
                    )
                )
                kept += 1
            self.game.apply(state, result.action, self.rngs[g])
            self.plies[g] += 1
        self.record_seconds += time.perf_counter() - start
        return kept

    def _expert_step(self) -> int:
        """One move in every game chosen by the expert baseline; its move is the position's policy target
        (one-hot over the legal actions) and the game's result its value target."""
        game, kept = self.game, 0
        for g, state in enumerate(self.states):
            start = time.perf_counter()
            decision = decision_from_state(game, state)
            self.search.stats.engine += time.perf_counter() - start
            start = time.perf_counter()
            action = int(self.expert.act(decision))
            self.search.stats.select += time.perf_counter() - start
            legal = np.flatnonzero(decision.action_mask).astype(np.int32)
            symmetric = bool(game.symmetries(state))
            if symmetric and self.symmetry_source is None:
                self.symmetry_source = game.state_to_json(state)
            self.pending[g].append(
                (
                    np.asarray(decision.observation, dtype=np.float16),
                    legal,
                    (legal == action).astype(np.float32),
                    decision.seat,
                    symmetric,
                    np.zeros(game.num_players),
                )
            )
            kept += 1
            game.apply(state, action, self.rngs[g])
            self.plies[g] += 1
        return kept

    def play(self, moves: int) -> dict[str, Any]:
        """``moves`` searched moves in every game: the finished samples, the positions searched, and where the
        time went."""
        self.search.stats = SearchStats()
        self.record_seconds = 0.0
        start = time.perf_counter()
        positions = sum(self.step() for _ in range(moves))
        samples, self.finished = self.finished, []
        stats = self.search.stats
        return {
            "samples": samples,
            "positions": positions,
            "seconds": time.perf_counter() - start,
            "select_s": stats.select,
            "engine_s": stats.engine,
            "forward_s": stats.evaluate,
            "backup_s": stats.backup,
            "record_s": self.record_seconds,
            "leaves_per_forward": stats.leaves / max(stats.batches, 1),
            "episodes": self.episodes,
            "lengths": list(self.lengths),
            "first_seat_wins": list(self.first_seat_wins),
            "symmetry_source": self.symmetry_source,
        }

    def state_dict(self) -> dict[str, Any]:
        game = self.game
        pending = [
            [
                {
                    "obs": torch.from_numpy(o.copy()),
                    "actions": torch.from_numpy(a.copy()),
                    "policy": torch.from_numpy(p.copy()),
                    "player": pl,
                    "symmetric": sy,
                    "value": torch.from_numpy(np.asarray(v, dtype=np.float64)),
                }
                for o, a, p, pl, sy, v in items
            ]
            for items in self.pending
        ]
        return {
            "states": json.dumps([game.state_to_json(s) for s in self.states]),
            "plies": list(self.plies),
            "pending": pending,
            "rngs": json.dumps([r.bit_generator.state for r in self.rngs], default=int),
            "search_rng": json.dumps(self.search.rng.bit_generator.state, default=int),
            "coin": json.dumps(self.coin.bit_generator.state, default=int),
            "episodes": self.episodes,
            "lengths": list(self.lengths),
            "first_seat_wins": list(self.first_seat_wins),
            "symmetry_source": json.dumps(self.symmetry_source),
            "expert_rng": json.dumps(self.expert.rng.bit_generator.state if self.expert else None, default=int),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        game = self.game
        self.states = [game.state_from_json(s) for s in json.loads(state["states"])]
        self.plies = [int(p) for p in state["plies"]]
        self.pending = [
            [
                (
                    d["obs"].numpy().copy(),
                    d["actions"].numpy().copy(),
                    d["policy"].numpy().copy(),
                    int(d["player"]),
                    bool(d["symmetric"]),
                    d["value"].numpy().copy(),
                )
                for d in items
            ]
            for items in state["pending"]
        ]
        for rng, s in zip(self.rngs, json.loads(state["rngs"])):
            rng.bit_generator.state = s
        self.search.rng.bit_generator.state = json.loads(state["search_rng"])
        self.coin.bit_generator.state = json.loads(state["coin"])
        self.episodes = int(state["episodes"])
        self.lengths = deque(state["lengths"], maxlen=200)
        self.first_seat_wins = deque(state["first_seat_wins"], maxlen=200)
        self.symmetry_source = json.loads(state["symmetry_source"])
        if self.expert is not None:
            self.expert.rng.bit_generator.state = json.loads(state["expert_rng"])


class LocalActor:
    """Self-play in this process, behind the same ``send``/``recv`` interface as :class:`RemoteActor`: ``send``
    does the work at once with the network as it is then (the trainer's own)."""

    def __init__(self, game: Game, config: TrainConfig, net: nn.Module, device: Any, seed: int):
        self.selfplay = SelfPlay(game, config, NetworkEvaluator(net, game.num_players, device), seed)
        self._answer: Any = None

    def send(self, command: str, data: Any = None) -> None:
        self._answer = serve_command(self.selfplay, None, command, data)

    def recv(self) -> Any:
        answer, self._answer = self._answer, None
        return answer

    def close(self) -> None:
        pass


def serve_command(selfplay: SelfPlay, net: nn.Module | None, command: str, data: Any) -> Any:
    """One actor command: ``play`` ((weights or None, moves)), ``state``, ``load``."""
    if command == "play":
        weights, moves = data
        if weights is not None and net is not None:
            net.load_state_dict(weights)
        return selfplay.play(moves)
    if command == "state":
        return selfplay.state_dict()
    if command == "load":
        return selfplay.load_state_dict(data)
    raise ValueError(f"unknown actor command {command!r}")


class SelfPlayServer:
    """Search-guided self-play over its own copy of the network: what a worker process (:class:`RemoteActor`) or
    a Ray actor (``training.scale.ray_workers``) serves, each on one core; each ``play`` carries the weights to
    use."""

    def __init__(self, config_data: dict[str, Any], seed: int):
        config = TrainConfig.from_dict(config_data)
        game, _, self.net = build(config)
        self.net.eval()
        self.selfplay = SelfPlay(game, config, NetworkEvaluator(self.net, game.num_players), seed)

    def serve(self, command: str, data: Any) -> Any:
        return serve_command(self.selfplay, self.net, command, data)


def _actor_process(conn: Any, config_data: dict[str, Any], seed: int) -> None:
    """Worker process: a :class:`SelfPlayServer` on one core until ``close``."""
    from training.workers import use_one_core

    use_one_core()
    server = SelfPlayServer(config_data, seed)
    try:
        while True:
            command, data = conn.recv()
            if command == "close":
                break
            conn.send(server.serve(command, data))
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        conn.close()


class RemoteActor(PipeWorker):
    """Self-play in a worker process (``send`` returns at once, ``recv`` waits), so that the games are searched
    on one core while the trainer takes gradient steps on the other. Each ``play`` carries the weights to use."""

    def __init__(self, config: TrainConfig, seed: int):
        super().__init__(_actor_process, (config.to_dict(), seed))


# ----- 4. the loss ------------------------------------------------------------------------------------------------
def alphazero_loss(net: nn.Module, batch: TrainingBatch, vf_coef: float = 1.0) -> tuple[torch.Tensor, dict[str, float]]:
    """``cross-entropy(target policy, network policy over the legal actions) + vf_coef * mean squared error of
    tanh(value)``, and diagnostics: the network's entropy over legal actions, the target's entropy, and
    ``KL(target || network)``."""
    if hasattr(net, "legal_logits"):  # scores only the positions' legal actions
        rows, slots = batch.valid.nonzero(as_tuple=True)
        picked, values = net.legal_logits(batch.obs, rows, batch.actions[rows, slots])
        logits = torch.full(batch.actions.shape, -1e9, dtype=picked.dtype).index_put((rows, slots), picked)
    else:
        scores, values, columns = net.scores(batch.obs)
        logits = scores.gather(1, action_positions(columns, batch.actions)).masked_fill(~batch.valid, -1e9)
    logp = torch.log_softmax(logits, dim=1)
    probs = batch.probs
    policy_loss = -(probs * logp).masked_fill(~batch.valid, 0.0).sum(1).mean()
    predicted = torch.tanh(values)
    target = batch.values if predicted.dim() == 2 else batch.values[:, 0]
    value_loss = ((predicted - target) ** 2).mean()
    loss = policy_loss + vf_coef * value_loss
    with torch.no_grad():
        p = logp.exp()
        entropy = -(p * logp).masked_fill(~batch.valid, 0.0).sum(1).mean()
        plogp = torch.where(probs > 0, probs * torch.log(probs.clamp_min(1e-12)), torch.zeros_like(probs))
        target_entropy = -plogp.sum(1).mean()
    stats = {
        "policy_loss": policy_loss.item(),
        "value_loss": value_loss.item(),
        "entropy": entropy.item(),
        "target_entropy": target_entropy.item(),
        "kl": policy_loss.item() - target_entropy.item(),
    }
    return loss, stats


def train_step(
    net: nn.Module, optimizer: torch.optim.Optimizer, batch: TrainingBatch, config: TrainConfig
) -> dict[str, float]:
    """One gradient step on ``batch``; returns the loss diagnostics and the gradient norm."""
    loss, stats = alphazero_loss(net, batch, config.vf_coef)
    optimizer.zero_grad()
    loss.backward()
    stats["grad_norm"] = float(nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm))
    optimizer.step()
    return stats


# ----- 5. the loop ------------------------------------------------------------------------------------------------
AZ_COLUMNS = [
    "update",
    "global_step",
    "time_s",
    "samples_per_s",
    "learning_rate",
    "gradient_steps",
    "policy_loss",
    "value_loss",
    "entropy",
    "target_entropy",
    "kl",
    "grad_norm",
    "episode_length",
    "episodes",
    "first_seat_win_rate",
    "buffer_size",
    "search_s",
    "engine_s",
    "forward_s",
    "backup_s",
    "select_s",
    "update_s",
    "eval_s",
    "leaves_per_forward",
]
"""``log.csv``'s columns before the evaluation's: ``update`` counts iterations, ``global_step`` searched
self-play positions, ``samples_per_s`` positions per second of the iteration; ``*_s`` are the iteration's
seconds in self-play search (of which engine: cloning, applying, observations, legal actions; forward: the
network's evaluations; backup and select: the tree bookkeeping; with ``config.expert``, select is the expert's
time choosing its moves and forward and backup stay 0), gradient steps and evaluation."""


def build(config: TrainConfig) -> tuple[Game, dict[str, Any], nn.Module]:
    """The game, network spec and fresh network of ``config`` (refuses hidden-information games).

    The value head's last layer starts at zero: every position is then worth 0 to every seat until the results
    teach otherwise, so the first searches' Q-values differ only where they reached the end of a game (a random
    value head made the first policy targets follow its noise)."""
    from training.networks import build_network, network_spec

    if config.algo != "alphazero":
        raise ValueError(f"training.alphazero trains algo='alphazero', not {config.algo!r}")
    game = envs.make_game(config.game, **config.env_options)
    check_searchable(game)
    spec = network_spec(config, game, value_outputs=value_outputs(game))
    net = build_network(spec, game)
    last = (
        [m for m in net.value.modules() if isinstance(m, nn.Linear)][-1]
        if isinstance(net.value, nn.Sequential)
        else net.value
    )
    with torch.no_grad():
        last.weight.zero_()
        last.bias.zero_()
    return game, spec, net


def train(config: TrainConfig, resume: str | Path | None = None) -> Path:
    """Run search-guided self-play for ``config``; returns the path of the final policy checkpoint.

    Same seed, same run (for ``total_steps``; a ``time_budget_min`` stops wherever the clock says). With
    ``resume`` (a run directory or its ``resume.pt``) the run continues exactly where it was saved: weights,
    optimiser, generators, the games in progress with their searched positions, and the replay buffer.
    """
    from training.charts import plot_curves
    from training.checkpoint import init_weights_from, load_resume, save_resume
    from training.networks import num_parameters
    from training.run.pieces import (
        RunLog,
        evaluate,
        evaluation_columns,
        evaluation_due,
        evaluation_kinds,
        progress_bar,
        run_directory,
        save_policy,
        seed_everything,
    )

    set_threads(thread_counts(config.torch_threads)[1])
    device = resolve_device(config.device)
    run_dir = run_directory(config)
    seed_everything(config.seed)
    game, spec, net = build(config)
    if config.init_from and resume is None:
        init_weights_from(net, spec, config.init_from, config.game, config.env_options)
    net.to(device).eval()
    optimizer = torch.optim.AdamW(
        net.parameters(), lr=config.learning_rate, eps=config.adam_eps, weight_decay=config.weight_decay
    )
    sample_rng = np.random.default_rng([config.seed, 13])
    actor: Any
    if config.ray:
        from training.scale.ray_workers import RaySelfPlay, connect

        connect(config.ray)
        actor = RaySelfPlay(SelfPlayServer, config, config.seed, actors=max(1, config.num_workers))
    elif config.num_workers > 0:
        actor = RemoteActor(config, config.seed)
    else:
        actor = LocalActor(game, config, net, device, config.seed)
    buffer = ReplayBuffer(config.replay_size, game.observation_shape, value_outputs(game))
    global_step, update, gradient_steps, elapsed, owed = 0, 0, 0, 0.0, 0.0
    evaluation: dict[str, Any] = {}
    if resume is not None:
        saved = load_resume(resume, config, game)
        net.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        torch.set_rng_state(saved["torch_rng"])
        sample_rng.bit_generator.state = json.loads(saved["sample_rng"])
        actor.send("load", saved["selfplay"])
        actor.recv()
        buffer.load_state_dict(saved["buffer"], game)
        global_step, update = int(saved["global_step"]), int(saved["update"])
        gradient_steps, elapsed, owed = int(saved["gradient_steps"]), float(saved["elapsed"]), float(saved["owed"])
        evaluation = json.loads(saved["evaluation"])

    log = RunLog(
        run_dir,
        AZ_COLUMNS + evaluation_columns(evaluation_kinds(config)),
        resumed=resume is not None,
        texts={
            "config": "```\n" + json.dumps(config.to_dict(), indent=1) + "\n```",
            "network": f"{spec} ({num_parameters(net)} parameters)",
        },
    )
    bar = progress_bar(config, global_step)
    budget = 60.0 * config.time_budget_min
    policy_path = run_dir / "policy.pt"
    remote = config.num_workers > 0 or bool(config.ray)
    try:
        while global_step < config.total_steps and not (budget and elapsed >= budget):
            # An iteration: (A) the actor plays iteration_moves moves in every game with the weights as they are
            # now, (B) meanwhile the trainer takes the gradient steps owed for the positions of the previous
            # iteration, (C) the new positions join the replay buffer, (D) log, evaluate, save. The actor is idle
            # at (D), so a resume file holds everything; with or without a worker process the run is the same.
            start = time.perf_counter()
            weights = {k: v.detach().cpu() for k, v in net.state_dict().items()} if remote else None
            actor.send("play", (weights, config.iteration_moves))
            lr = config.learning_rate
            if config.anneal_lr:
                lr *= max(0.0, 1.0 - max(global_step / config.total_steps, elapsed / budget if budget else 0.0))
            for group in optimizer.param_groups:
                group["lr"] = lr
            steps = int(owed) if len(buffer) >= config.train_batch_size else 0
            owed -= steps
            sums: dict[str, float] = {}
            train_start = time.perf_counter()
            net.train()
            for _ in range(steps):
                stats = train_step(
                    net,
                    optimizer,
                    buffer.sample(config.train_batch_size, sample_rng, config.augment).to(device),
                    config,
                )
                for k, v in stats.items():
                    sums[k] = sums.get(k, 0.0) + v
            net.eval()
            update_seconds = time.perf_counter() - train_start
            gradient_steps += steps
            played = actor.recv()
            if played["symmetry_source"] is not None and not buffer.symmetries:
                buffer.set_symmetries(game, game.state_from_json(played["symmetry_source"]))
            for sample in played["samples"]:
                buffer.add(*sample)
            positions = played["positions"]
            owed += positions * config.replay_ratio / config.train_batch_size
            global_step += positions
            update += 1
            work_end = time.perf_counter()
            final = global_step >= config.total_steps or bool(budget and elapsed + (work_end - start) >= budget)
            evaluated = evaluation_due(config, update, final=final)
            if evaluated:
                evaluation = {
                    "global_step": global_step,
                    "update": update,
                    "vs": evaluate(net, config, seed=config.seed * 100_003 + update),
                }
            end = time.perf_counter()
            elapsed += work_end - start  # as PPO's time_s: self-play and updates, evaluations not counted
            samples_per_s = positions / max(work_end - start, 1e-9)
            lengths, wins = played["lengths"], played["first_seat_wins"]
            row: dict[str, Any] = {
                "update": update,
                "global_step": global_step,
                "time_s": round(elapsed, 2),
                "samples_per_s": round(samples_per_s, 1),
                "learning_rate": lr,
                "gradient_steps": gradient_steps,
                **({k: v / steps for k, v in sums.items()} if steps else {}),
                "episode_length": float(np.mean(lengths)) if lengths else "",
                "episodes": played["episodes"],
                "first_seat_win_rate": float(np.mean(wins)) if wins else "",
                "buffer_size": len(buffer),
                "search_s": round(played["seconds"], 3),
                "engine_s": round(played["engine_s"], 3),
                "forward_s": round(played["forward_s"], 3),
                "backup_s": round(played["backup_s"], 3),
                "select_s": round(played["select_s"], 3),
                "update_s": round(update_seconds, 3),
                "eval_s": round(end - work_end, 3),
                "leaves_per_forward": round(played["leaves_per_forward"], 1),
            }
            scalars = {f"losses/{k}": v / steps for k, v in sums.items()} if steps else {}
            scalars.update(
                {
                    "charts/learning_rate": lr,
                    "charts/samples_per_s": samples_per_s,
                    "charts/buffer_size": float(len(buffer)),
                }
            )
            for name in ("search_s", "engine_s", "forward_s", "backup_s", "select_s", "update_s"):
                scalars[f"time/{name}"] = float(row[name])
            if evaluated:
                from training.run.pieces import evaluation_row

                eval_fields, eval_scalars = evaluation_row(evaluation["vs"])
                row.update(eval_fields)
                scalars.update(eval_scalars)
            log.write(row, scalars, global_step)
            postfix = {"pos/s": f"{samples_per_s:.0f}"}
            if steps:
                postfix["kl"] = f"{sums['kl'] / steps:.2f}"
            for k, result in evaluation.get("vs", {}).items():
                postfix[f"vs_{k}"] = f"{result['win_rate']:.2f}"
            bar.set_postfix(postfix, refresh=False)
            bar.update(min(positions, max(0, config.total_steps - bar.n)))
            if evaluated:
                save_policy(run_dir, net, spec, game, config, global_step, update, evaluation)
                actor.send("state")
                save_resume(
                    run_dir / "resume.pt",
                    {
                        "config": config.to_dict(),
                        "model": net.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "torch_rng": torch.get_rng_state(),
                        "sample_rng": json.dumps(sample_rng.bit_generator.state, default=int),
                        "selfplay": actor.recv(),
                        "buffer": buffer.state_dict(),
                        "global_step": global_step,
                        "update": update,
                        "gradient_steps": gradient_steps,
                        "elapsed": elapsed,
                        "owed": owed,
                        "evaluation": json.dumps(evaluation),
                    },
                )
                plot_curves(
                    log.csv_path,
                    run_dir / "curve.png",
                    title=f"{run_dir.name}: search-guided self-play ({config.search}, {config.simulations} "
                    f"simulations) on {config.game}, seed {config.seed}",
                    x_label="self-play positions searched",
                )
    finally:
        bar.close()
        log.close()
        actor.close()
    if not policy_path.exists():  # nothing left to do when resuming
        save_policy(run_dir, net, spec, game, config, global_step, update, evaluation)
    return policy_path
