"""Env groups behind one send/recv interface, in this process or in worker processes, and the network that answers
their network seats (the learner's and the snapshots' rows, batched).

* :class:`LocalHandle` / :class:`RemoteHandle` - a group (:func:`make_slots`) in this process or
  in a spawned worker; the commands are the group's methods (``reset``, ``step``, ``get_state``, ``set_state``,
  ``close``) and, with the policy in the worker, ``act``;
* :func:`choose_actions` - the network seats' actions of a batch of decisions: one forward pass for every learner
  row, one per snapshot for its rows;
* :class:`PolicyActor` - config ``policy_in_workers``: the learner's network and the snapshot pool in a worker,
  which answers its own group's network seats with its own seeded generators; the collector sends new weights
  (and new snapshots) after each update, and a step chosen before an update is chosen again with the new weights,
  so every transition's log-probability is the current policy's.

A report's observations go from a worker through shared memory, not the pipe: pickling Bestiarium's 430 kB a
report and pushing them through the pipe's 64 kB buffer took about 40% of a rollout.
"""

from __future__ import annotations

import base64
import copy
import os
from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from training.distribution import DENSE_ACTIONS, LegalActions, draw_dense, masked_policy, network_device
from training.networks import NumpyMLP, numpy_forward
from training.ppo.batched_slots import BatchedSlots
from training.ppo.mix import KIND_CODES, LEARNER, SNAPSHOT
from training.ppo.slots import GameSlots, Report
from training.workers import PipeWorker, usable_cores, use_one_core

LEARNER_CODE = KIND_CODES[LEARNER]
SNAPSHOT_CODE = KIND_CODES[SNAPSHOT]


def resolve_workers(num_workers: int, engine: str, cores: int | None = None) -> int:
    """Config ``num_workers``: -1 chooses by machine (2 env workers where it has 2 or more usable cores, else
    0: the envs in this process), whatever the ``engine``; ``cores`` overrides the machine's count (tests)."""
    if num_workers >= 0:
        return int(num_workers)
    if num_workers != -1:
        raise ValueError(f"num_workers={num_workers}; allowed: -1 (by machine) or an integer >= 0")
    return 2 if (usable_cores() if cores is None else cores) >= 2 else 0


AHEAD_NICE = 5
"""How much the env workers lower their priority while they play ahead (``policy_lag`` 1): the training process's
update and crediting, which the next batch waits for, keep a core to themselves while the workers share the other
(at equal priority the scheduler split the two cores three ways, and the workers then waited for the update to
finish on one core)."""


def resolve_policy_lag(policy_lag: int, update_threads: int) -> int:
    """Config ``policy_lag``: -1 chooses 1 where the update runs on one thread (the other cores are free for the
    workers to collect the next batch meanwhile), else 0."""
    if policy_lag == -1:
        return 1 if update_threads == 1 else 0
    if policy_lag not in (0, 1):
        raise ValueError(f"policy_lag={policy_lag}; allowed: -1 (by the update's threads), 0 or 1")
    return int(policy_lag)


# ----- the network seats ---------------------------------------------------------------------------------------
def frozen_copy(net: nn.Module, weights: dict[str, torch.Tensor] | None = None) -> nn.Module:
    """A copy of ``net`` for the snapshot pool (with ``weights`` loaded, when given): eval mode, no gradients."""
    frozen = copy.deepcopy(net).eval()
    if weights is not None:
        frozen.load_state_dict(weights)
    for p in frozen.parameters():
        p.requires_grad_(False)
    return frozen


@torch.no_grad()
def choose_actions(
    net: nn.Module | NumpyMLP,
    snapshot_net: Any,
    obs: np.ndarray,
    packed: np.ndarray,
    codes: np.ndarray,
    snapshot_ids: np.ndarray,
    num_actions: int,
    generator: torch.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(actions, log-probabilities, values)`` of a batch of network-seat decisions (observations, packed masks
    and controller codes per row), ``(E,)`` each: the learner's rows sampled from ``net`` in one pass (with their
    log-probabilities and values; 0 in the other rows), then the snapshot rows from
    ``snapshot_net(snapshot_ids[j])``, one pass per snapshot in id order; every draw from ``generator``, the
    learner's first."""
    e = len(codes)
    actions = np.zeros(e, dtype=np.int64)
    logps = np.zeros(e, dtype=np.float64)
    values = np.zeros(e, dtype=np.float64)
    learner = np.flatnonzero(codes == LEARNER_CODE)
    if learner.size:
        actions[learner], logps[learner], values[learner] = draw_actions(
            net, obs[learner], packed[learner], num_actions, generator
        )
    snapshot = np.flatnonzero(codes == SNAPSHOT_CODE)
    for snap_id in np.unique(snapshot_ids[snapshot]).tolist():
        rows = snapshot[snapshot_ids[snapshot] == snap_id]
        actions[rows] = draw_actions(snapshot_net(snap_id), obs[rows], packed[rows], num_actions, generator)[0]
    return actions, logps, values


def draw_actions(
    net: nn.Module | NumpyMLP, obs: np.ndarray, packed: np.ndarray, num_actions: int, generator: torch.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(actions, log-probabilities, values)`` of ``net`` for rows of observations and packed masks: one compiled
    draw over the whole logits where the game has few actions (:func:`~training.distribution.draw_dense`), else
    through :func:`~training.distribution.masked_policy`'s legal rows. ``net`` may be a
    :class:`~training.networks.NumpyMLP` (the workers' copy of an MLP): its pass in numpy, the same dense draw."""
    if isinstance(net, NumpyMLP):
        return _dense_draw(*net.scores(obs), packed, num_actions, generator)
    if num_actions <= DENSE_ACTIONS and not hasattr(net, "legal_logits"):
        scores, value_t, columns = net.scores(  # type: ignore[operator]  # a training.networks network
            torch.from_numpy(obs).to(network_device(net, torch.device("cpu")))
        )
        if columns is None:
            return _dense_draw(scores, value_t.cpu().numpy(), packed, num_actions, generator)
    dist, value_t = masked_policy(net, torch.from_numpy(obs), LegalActions.from_packed(packed, num_actions))
    sampled = dist.sample(generator)
    return sampled.cpu().numpy(), dist.log_prob(sampled).cpu().numpy(), value_t.cpu().numpy()


def _dense_draw(
    logits: torch.Tensor | np.ndarray, values: np.ndarray, packed: np.ndarray, num_actions: int, generator: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`draw_actions` over whole logit rows: the packed masks unpacked, one compiled draw a row."""
    legal = np.unpackbits(packed, axis=1, count=num_actions).view(bool)
    chosen, logp = draw_dense(logits, legal, generator)
    return chosen, logp, values


def rollout_copy(net: nn.Module, num_actions: int) -> NumpyMLP | None:
    """What the rollouts act with instead of ``net`` where the game has few actions (the dense draw): its
    :class:`~training.networks.NumpyMLP` if it is an MLP, else None (``net`` itself acts). A copy of the weights
    now: make one again after they change."""
    return numpy_forward(net) if num_actions <= DENSE_ACTIONS else None


def numpy_weights(net: nn.Module) -> dict[str, np.ndarray]:
    """A network's weights as numpy copies: a message to a worker (a tensor in a message would move the learner's
    own storage into shared memory)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in net.state_dict().items()}


def _load_numpy_weights(net: nn.Module, weights: dict[str, np.ndarray]) -> None:
    net.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})


class PolicyActor:
    """The learner's network and the snapshot pool in an env worker (config ``policy_in_workers``): chooses the
    network seats' actions of its group's reports, with its own seeded generators."""

    def __init__(self, game: str, options: dict[str, Any], spec: dict[str, Any], seed: int, num_envs: int):
        from training.networks import build_network

        the_game = envs.make_game(game, **options)
        self.net = build_network(spec, the_game)
        self.num_actions = int(the_game.num_actions)
        self.fast: NumpyMLP | None = None
        """The learner's network in numpy where it is an MLP with few actions (:func:`draw_actions`), else None."""
        self.version = -1
        self.pool: dict[int, nn.Module | NumpyMLP] = {}
        self.generator = torch.Generator().manual_seed(int(seed))
        self.rng = np.random.default_rng([int(seed), 4])
        self.snapshot_of = np.full(num_envs, -1, dtype=np.int64)
        """Per local env: the snapshot its current game's snapshot seats play (-1: none drawn yet)."""
        self.report: Report | None = None
        """The report last answered (acted on again when the weights change)."""

    def update(self, data: tuple) -> None:
        """``(version, weights, new snapshots [(id, weights)], snapshot ids to keep)`` from the collector."""
        version, weights, snapshots, keep = data
        _load_numpy_weights(self.net, weights)
        self.fast = rollout_copy(self.net, self.num_actions)
        self.version = int(version)
        for snap_id, snap_weights in snapshots:
            frozen = frozen_copy(self.net, {k: torch.from_numpy(v) for k, v in snap_weights.items()})
            self.pool[int(snap_id)] = rollout_copy(frozen, self.num_actions) or frozen
        for snap_id in list(self.pool):
            if snap_id not in keep:
                del self.pool[snap_id]

    def act(self, report: Report, new: bool) -> Report:
        """Choose the network seats' actions of ``report`` (``new``: a report not acted on before, whose new games
        draw their snapshot here)."""
        self.report = report
        if self.version < 0:
            return report  # no weights yet: the collector sends them and asks again
        if new:
            for j, controllers in enumerate(report.new_controllers):
                if controllers is not None and SNAPSHOT in controllers and self.pool:
                    ids = sorted(self.pool)
                    self.snapshot_of[j] = ids[int(self.rng.integers(len(ids)))]
        actions, logps, values = choose_actions(
            self.fast or self.net,
            self._snapshot,
            report.obs,
            report.packed,
            report.codes,
            self.snapshot_of,
            report.num_actions,
            self.generator,
        )
        report.actions, report.logps, report.values, report.version = actions, logps, values, self.version
        return report

    def ahead(self, slots: Any, steps: int, weights: tuple | None, first: np.ndarray | None) -> list[Report]:
        """Config ``policy_lag`` 1: ``steps`` steps of ``slots`` from where it stands, while the collector runs its
        update: the first with ``first`` (the actions the collector holds for the group's last report; None: the
        ones this actor chose for it), each next with this actor's choice (after loading ``weights``, an
        :meth:`update` message, when given). The reports, whole (their own observations), in order."""
        if weights is not None:
            self.update(weights)
        assert self.version >= 0
        actions = first
        if actions is None:
            assert self.report is not None and self.report.actions is not None
            actions = self.report.actions
        reports = []
        for _ in range(int(steps)):
            report = self.act(slots.step(actions), new=True)
            reports.append(report)
            actions = report.actions
        return reports

    def _snapshot(self, snap_id: int) -> nn.Module | NumpyMLP:
        return self.pool.get(snap_id) or self.pool[min(self.pool)]

    def get_state(self) -> dict[str, Any]:
        return {
            "generator": base64.b64encode(self.generator.get_state().numpy().tobytes()).decode("ascii"),
            "rng": self.rng.bit_generator.state,
            "snapshot_of": {str(j): int(s) for j, s in enumerate(self.snapshot_of.tolist()) if s >= 0},
        }

    def set_state(self, state: dict[str, Any]) -> None:
        raw = np.frombuffer(base64.b64decode(state["generator"]), dtype=np.uint8).copy()
        self.generator.set_state(torch.from_numpy(raw))
        self.rng.bit_generator.state = state["rng"]
        self.snapshot_of[:] = -1
        for j, s in state["snapshot_of"].items():
            self.snapshot_of[int(j)] = int(s)
        self.version = -1  # the collector sends the weights and the pool again


# ----- where a group runs --------------------------------------------------------------------------------------
def make_slots(engine: str, args: tuple, **hooks: Any) -> GameSlots | BatchedSlots:
    """The env group for ``engine`` (``reference``: a :class:`~training.ppo.slots.GameSlots`; ``batched``: a
    :class:`~training.ppo.batched_slots.BatchedSlots`) over :class:`GameSlots`' arguments ``args``."""
    return BatchedSlots(*args, **hooks) if engine == "batched" else GameSlots(*args, **hooks)


class LocalHandle:
    """An env group in this process, behind the same send/recv interface as a worker."""

    def __init__(self, slots: Any):
        self.slots = slots
        self._answer: Any = None

    def send(self, command: str, data: Any = None) -> None:
        self._answer = getattr(self.slots, command)(data)

    def recv(self) -> Any:
        answer, self._answer = self._answer, None
        return answer

    def close(self) -> None:
        self.slots.close()

    def cpu_seconds(self) -> float:
        """No worker: its CPU time is this process's."""
        return 0.0


class GroupServer:
    """The commands of one env group (:func:`make_slots`) and, with ``actor_args`` (``policy_in_workers``), of its
    :class:`PolicyActor`: what a worker process (:func:`_worker`) or a Ray actor
    (:mod:`training.scale.ray_workers`) serves. ``serve(command, data)`` answers one command; ``act`` sends new
    weights and asks again for the last report."""

    def __init__(self, engine: str, args: tuple, actor_args: tuple | None = None):
        self.slots = make_slots(engine, args)
        self.actor = PolicyActor(*actor_args) if actor_args is not None else None

    def serve(self, command: str, data: Any) -> Any:
        slots, actor = self.slots, self.actor
        if command == "act":
            assert actor is not None and actor.report is not None
            actor.update(data)
            return actor.act(actor.report, new=False)
        if command == "ahead":
            assert actor is not None
            return actor.ahead(slots, *data)
        if command == "set_state" and actor is not None:
            if "actor" in data:
                actor.set_state(data["actor"])
            else:  # saved without the policy in the workers: the actor starts afresh, the weights come again
                actor.version = -1
            return actor.act(slots.set_state(data), new=False)
        answer = getattr(slots, command)(data)
        if actor is not None and isinstance(answer, Report):
            answer = actor.act(answer, new=True)
        elif actor is not None and command == "get_state":
            answer["actor"] = actor.get_state()
        return answer

    def close(self) -> None:
        self.slots.close()


def _worker(
    conn: Any, engine: str, args: tuple, shared_obs: torch.Tensor, actor_args: tuple | None = None, nice: int = 0
) -> None:
    """Worker process: serve commands on a :class:`GroupServer` until ``close``. A report's observations go
    into ``shared_obs`` (shared memory) instead of through the pipe. ``nice``: how much to lower the worker's
    priority (:data:`AHEAD_NICE`)."""
    use_one_core()
    if nice:
        os.nice(nice)
    server = GroupServer(engine, args, actor_args)
    obs_out = shared_obs.numpy()
    try:
        while True:
            command, data = conn.recv()
            if command == "close":
                break
            answer: Any = server.serve(command, data)
            if isinstance(answer, Report):
                obs_out[...] = answer.obs
                answer = copy.copy(answer)  # the actor keeps its report whole
                answer.obs = None  # the handle puts the shared view back
            conn.send(answer)
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        conn.close()


class RemoteHandle(PipeWorker):
    """An env group in a worker process; ``send`` returns at once, ``recv`` waits for the answer.

    A report's observations come through shared memory (module docstring): the report holds a view of that memory,
    which the worker rewrites at its next report, valid until the next :meth:`send` (the collector copies out the
    rows it keeps before it sends the next step). ``actor_args``: ``(game, options, network spec, seed, envs)`` of the
    worker's :class:`PolicyActor` (``policy_in_workers``)."""

    def __init__(self, engine: str, args: tuple, actor_args: tuple | None = None, nice: int = 0):
        game = envs.make_game(args[0], **args[1])
        dtype = torch.from_numpy(np.zeros(0, dtype=game.observation_dtype)).dtype
        shared = torch.zeros((len(args[2]), *game.observation_shape), dtype=dtype).share_memory_()
        self._obs = shared.numpy()
        super().__init__(_worker, (engine, args, shared, actor_args, nice))

    def recv(self) -> Any:
        answer = super().recv()
        if isinstance(answer, Report) and answer.obs is None:
            answer.obs = self._obs
        return answer
