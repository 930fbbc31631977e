"""PPO's self-play rollouts: :class:`SelfPlayCollector` steps the env groups, answers the network seats and
credits every learner decision, until the buffer holds a batch.

How a batch is collected
    ``num_envs`` envs are stepped in lockstep, split into groups (one per env worker, config ``num_workers``; one
    group without workers). Every seat has a controller (:mod:`training.ppo.mix`): the learner, a snapshot from
    the pool, or a scripted policy. A group plays its scripted seats itself and stops each env at a network seat's
    decision, then reports them all at once (:mod:`training.ppo.slots`, on either rule engine). For each report
    the collector

    1. credits the rewards paid since the last one and completes the decisions of ended or cut games
       (:mod:`training.ppo.credit`, whole arrays);
    2. answers the network seats (:func:`~training.ppo.envworkers.choose_actions`): with the policy in the workers
       (config ``policy_in_workers``) each worker has already answered its group; else this process answers
       every group's rows in one forward pass per step (one for all learner rows, one per snapshot);
    3. completes each deciding learner seat's previous decision and keeps the new one pending;
    4. sends the actions: the group steps while the collector reads the next group's report, and each group's
       last step of a batch runs during the update.

With config ``policy_lag`` 1 (the policy in the workers) each worker, once a batch is full, goes on alone for
about a batch's steps with the weights it has, while this process runs the update: the next batch is then
already waiting in :attr:`~SelfPlayCollector.queue`, its decisions one update behind the weights that train on
them. A report from the queue is credited as it came (never chosen again); a resume file keeps the queue.

The opponent pool (past snapshots of the learner) and the training games' results per opponent kind are kept
here too.
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
from collections import deque
from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from training.config import TrainConfig
from training.distribution import network_device
from training.ppo.buffer import RolloutBuffer, Transition
from training.ppo.credit import SeatCredit
from training.ppo.envworkers import (
    AHEAD_NICE,
    LEARNER_CODE,
    GroupServer,
    LocalHandle,
    RemoteHandle,
    choose_actions,
    frozen_copy,
    make_slots,
    numpy_weights,
    resolve_policy_lag,
    resolve_workers,
)
from training.ppo.mix import LEARNER, SNAPSHOT, parse_mix
from training.ppo.slots import Report, check_engine_state, report_from_state, report_state, resolve_engine
from training.run.opponents import POLICY, SCRIPTED_KINDS, make_scripted, outcome
from training.workers import thread_counts


class SelfPlayCollector:
    """Runs the envs, the learner and the snapshot pool; fills a :class:`RolloutBuffer` with complete
    transitions credited per seat."""

    def __init__(
        self,
        config: TrainConfig,
        net: nn.Module,
        generator: torch.Generator,
        make_env: Any = None,
        make_engine: Any = None,
        engine: str | None = None,
    ):
        """``make_env`` / ``make_engine``: a raw-env / batched-engine factory to use instead of the game's (tests;
        in-process groups only; ``make_env`` implies the reference engine, ``make_engine`` the batched one).
        ``engine``: ``reference`` or ``batched``, instead of what ``config.engine`` resolves to (a resumed run
        keeps the engine it was saved with)."""
        self.config = config
        self.net = net
        self.generator = generator
        self.game_name = config.game
        if make_env is not None:
            self.engine = "reference"
        elif make_engine is not None:
            self.engine = "batched"
        else:
            self.engine = engine or resolve_engine(config.game, config.engine)
        hooks = {"make_env": make_env} if make_env is not None else {}
        if make_engine is not None:
            hooks = {"make_engine": make_engine}
        seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(config.seed).spawn(config.num_envs)]
        mix = parse_mix(config.opponent_mix, config.game)
        opponent_policy = getattr(config, "opponent_policy", "") if POLICY in mix else ""
        if POLICY in mix:
            # a frozen policy is asked one decision at a time on a reference state: the reference engine
            if self.engine == "batched" and engine is None and make_engine is None and config.engine == "auto":
                self.engine = "reference"
            # a bad spec fails here, with its message, rather than in a worker
            make_scripted(
                config.game,
                POLICY,
                seed=0,
                engine=envs.make_game(config.game, **config.env_options),
                spec=opponent_policy,
            )
        ray_address = str(getattr(config, "ray", "") or "")
        remote_class: Any = RemoteHandle
        if ray_address:
            if make_env or make_engine:
                raise ValueError("ray: the env groups are built from the config (no make_env / make_engine hooks)")
            from training.scale.ray_workers import RayEnvGroup, cluster_cpus, connect

            cpus = cluster_cpus(connect(ray_address))
            self.num_workers = cpus if config.num_workers == -1 else int(config.num_workers)
            if self.num_workers < 1:
                raise ValueError(f"ray={ray_address!r} runs the env groups as Ray actors: num_workers must be >= 1")
            remote_class = functools.partial(RayEnvGroup, GroupServer)
        else:
            self.num_workers = resolve_workers(config.num_workers, self.engine)
        self.policy_in_workers = (
            bool(getattr(config, "policy_in_workers", False)) and self.num_workers > 0 and not (make_env or make_engine)
        )
        """The workers choose the network seats' actions (config ``policy_in_workers``; with workers only)."""
        from training.networks import network_spec

        small = network_spec(config, envs.make_game(config.game, **config.env_options))["kind"] == "mlp"
        lag = resolve_policy_lag(config.policy_lag, thread_counts(config.torch_threads, small_network=small)[1])
        self.policy_lag = lag if self.policy_in_workers else 0
        """1: the workers collect the next batch during the update (config ``policy_lag``; the policy in them)."""
        groups = max(1, self.num_workers)
        self.group_envs = [np.arange(config.num_envs)[g::groups] for g in range(groups)]
        """Each group's envs (their global indices)."""
        self.handles: list[Any] = []
        for ids in self.group_envs:
            args = (
                config.game,
                dict(config.env_options),
                [seeds[i] for i in ids],
                config.opponent_fraction,
                mix,
                config.score_shaping,
                opponent_policy,
            )
            if self.num_workers > 0 and not hooks:
                actor_args = None
                if self.policy_in_workers:
                    from training.networks import network_spec

                    game = envs.make_game(config.game, **config.env_options)
                    actor_seed = int(np.random.SeedSequence([config.seed, 5, len(self.handles)]).generate_state(1)[0])
                    spec = network_spec(config, game)
                    actor_args = (config.game, dict(config.env_options), spec, actor_seed, len(ids))
                nice = AHEAD_NICE if self.policy_lag else 0
                self.handles.append(remote_class(self.engine, args, actor_args, nice=nice))
            else:
                self.handles.append(LocalHandle(make_slots(self.engine, args, **hooks)))
        self.version = 0
        """The learner weights' version (``policy_in_workers``): one more at every collection."""
        self.sent_version = [-1] * groups
        self.sent_snapshots: list[set[int]] = [set() for _ in range(groups)]
        self.ready: list[Report | None] = [None] * groups
        self.in_flight = [False] * groups
        self.queue: list[deque[Report]] = [deque() for _ in range(groups)]
        """Per group: reports its worker played ahead (``policy_lag`` 1), oldest first, credited before any other."""
        self.ahead_in_flight = [False] * groups
        self.started = False
        self.credit: SeatCredit | None = None
        """The pending decisions (built from the first report, which gives the shapes)."""
        self.rng = np.random.default_rng([config.seed, 2])
        self.controllers: list[list[str]] = [[] for _ in range(config.num_envs)]
        self.snapshot_of = np.zeros(config.num_envs, dtype=np.int64)
        """Per env: the snapshot its current game's snapshot seats play (in this process's choices)."""
        self.pool: dict[int, nn.Module] = {}
        self.next_snapshot_id = 0
        self.results: dict[str, deque] = {k: deque(maxlen=200) for k in (SNAPSHOT, *SCRIPTED_KINDS)}
        """Recent training-game outcomes of the learner (1 win, 0.5 shared first, 0 loss) per opponent kind."""
        self.lengths: deque = deque(maxlen=200)
        self.episodes = 0
        self.network_cpu_s = 0.0
        """CPU seconds this thread spent in the network's passes (choosing actions, values at cuts) since the
        counter was last reset: the loop's serial figure leaves them out."""
        self.add_snapshot(net)

    # ----- the pool -------------------------------------------------------------------------------------
    def add_snapshot(self, net: nn.Module) -> None:
        """Freeze a copy of ``net`` into the opponent pool (dropping the oldest beyond ``pool_size``)."""
        self.pool[self.next_snapshot_id] = frozen_copy(net)
        self.next_snapshot_id += 1
        while len(self.pool) > max(1, self.config.pool_size):
            del self.pool[min(self.pool)]

    def _snapshot(self, snap_id: int) -> nn.Module:
        return self.pool.get(snap_id) or self.pool[min(self.pool)]

    # ----- collection -------------------------------------------------------------------------------------
    def collect(self, buffer: RolloutBuffer, target: int) -> None:
        """Step the envs until ``buffer`` holds at least ``target`` complete learner transitions.

        Each group's last step stays in flight (with workers, it runs during the update)."""
        self.version += 1  # the weights may have changed since the last collection
        if not self.started:
            for handle in self.handles:
                handle.send("reset")
            for g, handle in enumerate(self.handles):
                self.ready[g] = handle.recv()
            self.started = True
        self.sync()
        steps = 0
        while len(buffer) < target:
            steps += 1
            if self.policy_in_workers or len(self.handles) == 1:
                for g in range(len(self.handles)):  # each group steps while the next one's report is read
                    report = self._receive(g)
                    self._settle(g, report, buffer)
                    actions = self._decide(g, report, buffer, *self._answers(report, self.group_envs[g]))
                    if not self.queue[g]:  # else the worker has played on already
                        self._send(g, actions)
            else:  # this process answers every group's network seats together: one pass for all learner rows
                reports = [self._receive(g) for g in range(len(self.handles))]
                for g, report in enumerate(reports):
                    self._settle(g, report, buffer)
                chosen, logps, values = self._answers_all(reports)
                start = 0
                for g, report in enumerate(reports):
                    rows = slice(start, start + len(report.codes))
                    start = rows.stop
                    self._send(g, self._decide(g, report, buffer, chosen[rows], logps[rows], values[rows]))
        if self.policy_lag:
            self._play_ahead(steps)

    def _play_ahead(self, steps: int) -> None:
        """``policy_lag`` 1: each worker plays on alone during the update, to about ``steps`` reports (this batch's)
        beyond what it has reported, with the weights of this batch (sent along where it has older ones)."""
        for g, handle in enumerate(self.handles):
            # a step short of this batch: a shorter next batch then leaves no report two updates old
            count = steps - 1 - len(self.queue[g]) - int(self.in_flight[g])
            if count <= 0:
                continue
            first = self.queue[g][-1].actions if self.queue[g] and not self.in_flight[g] else None
            handle.send("ahead", (count, self._weights_message(g), first))
            self.ahead_in_flight[g] = True

    def _weights_message(self, g: int, force: bool = False) -> tuple | None:
        """The learner's weights and the pool's new snapshots for group ``g``'s actor (None: it has them, unless
        ``force``: an ``act`` message, which always carries them)."""
        if self.sent_version[g] == self.version and not force:
            return None
        new = [(i, numpy_weights(net)) for i, net in self.pool.items() if i not in self.sent_snapshots[g]]
        self.sent_snapshots[g] = set(self.pool)
        self.sent_version[g] = self.version
        return (self.version, numpy_weights(self.net), new, set(self.pool))

    def _receive(self, g: int) -> Report:
        if self.queue[g]:
            return self.queue[g].popleft()  # played ahead: credited as it came
        report = self.ready[g]
        if report is not None:
            self.ready[g] = None
        else:
            self.in_flight[g] = False
            report = self.handles[g].recv()
        if self.policy_in_workers and report.version != self.version:
            # chosen with older weights (the step that ran during the update), or none: choose again with these
            handle = self.handles[g]
            handle.send("act", self._weights_message(g, force=True))
            report = handle.recv()
        return report

    def _send(self, g: int, actions: np.ndarray) -> None:
        self.handles[g].send("step", actions)
        self.in_flight[g] = True

    def sync(self) -> None:
        """Receive every in-flight step (before saving the state); with ``policy_lag`` 1 into the queue, and the
        reports the worker played ahead after it."""
        for g, handle in enumerate(self.handles):
            if self.in_flight[g]:
                if self.ahead_in_flight[g]:
                    self.queue[g].append(handle.recv())
                else:
                    self.ready[g] = handle.recv()
                self.in_flight[g] = False
            if self.ahead_in_flight[g]:
                self.queue[g].extend(handle.recv())
                self.ahead_in_flight[g] = False

    @torch.no_grad()
    def _settle(self, g: int, report: Report, buffer: RolloutBuffer) -> None:
        """Step 1: credit the report's rewards, complete the decisions of ended and cut games, note new games."""
        ids = self.group_envs[g]
        credit = self._credit(report)
        credit.pay(ids, report.rewards)
        ended = np.flatnonzero(report.ended)
        if ended.size:
            n = report.rewards.shape[1]
            cut = np.array([report.cuts[j] is not None for j in ended.tolist()], dtype=bool)
            cut_potential = np.zeros((ended.size, n))
            cut_obs = np.zeros((ended.size, *credit.obs.shape[1:]), dtype=credit.obs.dtype)
            for k in np.flatnonzero(cut).tolist():
                c = report.cuts[int(ended[k])]
                assert c is not None
                cut_potential[k], cut_obs[k] = c.potential, c.obs
            credit.end(buffer, ids[ended], cut, cut_potential, cut_obs, self._values)
        for j in np.flatnonzero(report.fresh).tolist():  # new games: their controllers, their snapshot
            i = int(ids[j])
            controllers = report.new_controllers[j]
            assert controllers is not None
            self.controllers[i] = controllers
            if SNAPSHOT in controllers:
                pool = sorted(self.pool)
                self.snapshot_of[i] = pool[int(self.rng.integers(len(pool)))]
        for episode in report.episodes:
            self._record(episode)

    def _answers(self, report: Report, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Step 2 for one group: the worker's answers, or this process's."""
        if report.actions is not None:  # the worker chose them (policy_in_workers)
            assert report.logps is not None and report.values is not None
            return report.actions, report.logps, report.values
        return self._timed(
            choose_actions,
            self.net,
            self._snapshot,
            report.obs,
            report.packed,
            report.codes,
            self.snapshot_of[ids],
            report.num_actions,
            self.generator,
        )

    def _answers_all(self, reports: list[Report]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Step 2 for every group at once (the rows of all reports, group after group)."""
        return self._timed(
            choose_actions,
            self.net,
            self._snapshot,
            np.concatenate([r.obs for r in reports]),
            np.concatenate([r.packed for r in reports]),
            np.concatenate([r.codes for r in reports]),
            self.snapshot_of[np.concatenate(self.group_envs)],
            reports[0].num_actions,
            self.generator,
        )

    def _decide(
        self, g: int, report: Report, buffer: RolloutBuffer, chosen: np.ndarray, logps: np.ndarray, values: np.ndarray
    ) -> np.ndarray:
        """Step 3: the learner's decisions complete their seats' previous ones and become pending; returns the
        actions to send (a copy: a worker's report is rewritten at its next step)."""
        learner = np.flatnonzero(report.codes == LEARNER_CODE)
        ids = self.group_envs[g]
        assert self.credit is not None
        self.credit.decide(
            buffer,
            ids[learner],
            report.seats[learner].astype(np.int64),
            report.obs[learner],
            report.packed[learner],
            chosen[learner],
            logps[learner],
            values[learner],
            report.potential[learner],
        )
        return chosen.copy()

    def _timed(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)``, its CPU time on this thread added to :attr:`network_cpu_s`."""
        start = time.thread_time()
        try:
            return fn(*args)
        finally:
            self.network_cpu_s += time.thread_time() - start

    def _credit(self, report: Report) -> SeatCredit:
        if self.credit is None:
            self.credit = SeatCredit(
                self.config.num_envs,
                report.rewards.shape[1],
                report.obs.shape[1:],
                report.obs.dtype,
                report.packed.shape[1],
                self.config.gamma,
            )
        return self.credit

    def _values(self, obs: np.ndarray) -> np.ndarray:
        """The learner's values of observations (the bootstraps at cuts)."""
        device = network_device(self.net, torch.device("cpu"))
        scores = self.net.scores
        _, values, _ = self._timed(scores, torch.from_numpy(obs).to(device))
        return values.cpu().numpy().astype(np.float32)

    def _record(self, episode: dict[str, Any]) -> None:
        self.episodes += 1
        self.lengths.append(episode["length"])
        controllers = episode["controllers"]
        others = {c for c in controllers if c != LEARNER}
        if len(others) == 1:
            kind = others.pop()
            seat = controllers.index(LEARNER)
            self.results[kind].append(outcome(np.array(episode["returns"]), seat))

    def workers_cpu_s(self) -> float:
        """The env workers' CPU time so far (0 without workers)."""
        return sum(handle.cpu_seconds() for handle in self.handles)

    def win_rates(self) -> dict[str, float]:
        """Recent training-game scores of the learner per opponent kind (kinds with games only)."""
        return {k: float(np.mean(v)) for k, v in self.results.items() if v}

    @property
    def pending(self) -> dict[tuple[int, int], Transition]:
        """The learner's pending decisions by ``(env, seat)``, as records."""
        return {} if self.credit is None else self.credit.pending()

    # ----- exact state, for --resume ----------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue collection exactly (call between updates)."""
        self.sync()
        groups = []
        for handle in self.handles:
            handle.send("get_state")
            groups.append(handle.recv())
        pending = [
            {
                "env": i,
                "seat": s,
                "obs": torch.from_numpy(t.obs.copy()),
                "mask": torch.from_numpy(t.packed_mask.copy()),
                "action": t.action,
                "logp": t.logp,
                "value": t.value,
                "reward": t.reward,
                "potential": t.potential,
            }
            for (i, s), t in self.pending.items()
        ]
        return {
            "engine": self.engine,
            "groups": json.dumps(groups),
            "started": self.started,
            "pending": pending,
            "controllers": json.dumps(self.controllers),
            "snapshot_of": self.snapshot_of.tolist(),
            "pool": {int(k): v.state_dict() for k, v in self.pool.items()},
            "next_snapshot_id": self.next_snapshot_id,
            "rng": json.dumps(self.rng.bit_generator.state, default=int),
            "results": json.dumps({k: list(v) for k, v in self.results.items()}),
            "lengths": list(self.lengths),
            "episodes": self.episodes,
            "queue": [[report_state(r) for r in q] for q in self.queue],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Inverse of :meth:`state_dict`; ValueError for a state collected on the other engine."""
        check_engine_state(state, self.engine)
        self.started = bool(state["started"])
        self.sent_version = [-1] * len(self.handles)  # the workers get the weights and the pool again
        self.sent_snapshots = [set() for _ in self.handles]
        saved = state.get("queue") or []  # absent in a run saved before policy_lag
        if any(saved) and len(saved) != len(self.handles):
            raise ValueError(f"the run was saved with {len(saved)} env workers playing ahead; resume it with as many")
        self.queue = (
            [deque(report_from_state(r) for r in q) for q in saved] if any(saved) else [deque() for _ in self.handles]
        )
        if self.started:
            for g, (handle, group_state) in enumerate(zip(self.handles, json.loads(state["groups"]))):
                handle.send("set_state", group_state)
                answer = handle.recv()
                # with reports queued, the group stands at the last of them: its answer repeats that one
                self.ready[g] = None if self.queue[g] else answer
                self.in_flight[g] = False
            credit = self._credit(answer)  # any group's report gives the shapes
            credit.open[:] = False
            for p in state["pending"]:
                credit.restore(
                    int(p["env"]),
                    int(p["seat"]),
                    Transition(
                        p["obs"].numpy(),
                        p["mask"].numpy(),
                        int(p["action"]),
                        float(p["logp"]),
                        float(p["value"]),
                        float(p["reward"]),
                        potential=float(p.get("potential", 0.0)),
                    ),
                )
        self.controllers = json.loads(state["controllers"])
        self.snapshot_of[:] = [int(s) for s in state["snapshot_of"]]
        self.pool = {}
        for snap_id, weights in state["pool"].items():
            self.pool[int(snap_id)] = frozen_copy(self.net, weights)
        self.next_snapshot_id = int(state["next_snapshot_id"])
        self.rng.bit_generator.state = json.loads(state["rng"])
        for k, v in json.loads(state["results"]).items():
            self.results[k] = deque(v, maxlen=200)
        self.lengths = deque(state["lengths"], maxlen=200)
        self.episodes = int(state["episodes"])

    def close(self) -> None:
        with contextlib.suppress(EOFError, OSError):
            self.sync()  # a worker playing ahead answers before it reads the close
        for handle in self.handles:
            handle.close()
