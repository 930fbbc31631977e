"""``barnyard train --ray ADDRESS``: PPO's env workers and search-guided self-play's generators as Ray actors.

The learner stays in the driver (with the GPU where it has one); what runs on the cluster is what the local
worker processes run, behind the same ``send`` / ``recv`` interface:

* PPO (:class:`RayEnvGroup`): each env group (its games, scripted seats, observations and, with
  ``policy_in_workers``, its copy of the network and snapshot pool) is an actor serving
  ``training.ppo.envworkers.GroupServer``'s commands. With ``policy_lag`` 1 (the default where the update
  runs on one thread) an actor plays the next batch ahead during the update and sends it back as one segment, so
  Ray's per-call cost (about 0.3-1 ms a round trip against a pipe's 0.05 ms) is paid about once a batch, not once
  a step.
* Search-guided self-play (:class:`RaySelfPlay`): each actor plays its share of the ``num_envs`` games with the
  weights sent with every ``play``; their positions are merged in actor order.

Actors take one CPU each and are spread over the nodes (``scheduling_strategy="SPREAD"``). ``ADDRESS``: ``local``
(a Ray started here, bound to 127.0.0.1), ``auto`` (the cluster this machine belongs to) or ``HOST:PORT`` of a
cluster's head. Every node needs this package installed (the same version), as the driver has it.

Same seed, same run: the actors are seeded as the local workers are, and every answer is taken in group order,
so a PPO run with ``--ray`` gives the same transitions as with local workers, and search-guided self-play with one
actor the same games as its local worker; with several self-play actors the games are split among them (actor
``k`` plays games ``k, k + n, ...`` with its own seed), which is another run than one actor's.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import deque
from typing import Any

RAY_CPUS_PER_ACTOR = 1


def _is_loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]")
    return address == "local" or host in ("127.0.0.1", "localhost", "::1")


def connect(address: str) -> Any:
    """Join (or for ``local`` start) the Ray cluster at ``address``; returns the ``ray`` module.

    On loopback (``local``, ``127.0.0.1:PORT``) this process takes 127.0.0.1 as its node address and a local Ray
    listens there only."""
    if not address:
        raise ValueError("--ray needs an address: local, auto or HOST:PORT")
    if _is_loopback(address):
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # read when Ray is imported
    import ray

    if ray.is_initialized():
        return ray
    kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False}
    if _is_loopback(address):
        kwargs["_node_ip_address"] = "127.0.0.1"
    if address == "local":
        ray.init(include_dashboard=False, **kwargs)
    else:
        ray.init(address=address, **kwargs)
    return ray


def cluster_cpus(ray: Any) -> int:
    """The cluster's CPUs (what ``num_workers = -1`` turns into with ``--ray``)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# ----- the actors ------------------------------------------------------------------------------------------------
class ServerActor:
    """A Ray actor around ``server_class(*args)``, anything with ``serve(command, data)``: PPO's
    ``training.ppo.envworkers.GroupServer`` or search-guided self-play's ``training.alphazero.selfplay
    .SelfPlayServer``, given by the caller (so that this module imports no learner). One core (torch, numba and
    BLAS threads at 1), priority lowered by ``nice``."""

    def __init__(self, server_class: type, args: tuple, nice: int = 0):
        from training.workers import use_one_core

        use_one_core()
        if nice:
            os.nice(nice)
        self.server = server_class(*args)

    def serve(self, command: str, data: Any) -> tuple[Any, float]:
        """``(answer, this actor's CPU seconds so far)``."""
        return self.server.serve(command, data), time.process_time()

    def node_id(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()

    def close(self) -> None:
        close = getattr(self.server, "close", None)  # the env group's (a self-play server holds nothing to close)
        if close is not None:
            close()


_ACTOR_CLASSES: dict[str, Any] = {}


def _actor_class(cls: type) -> Any:
    """``ray.remote(cls)`` made once per process."""
    if cls.__name__ not in _ACTOR_CLASSES:
        import ray

        _ACTOR_CLASSES[cls.__name__] = ray.remote(num_cpus=RAY_CPUS_PER_ACTOR)(cls)
    return _ACTOR_CLASSES[cls.__name__]


class RayEnvGroup:
    """An env group (a ``server_class(engine, args, actor_args)``: ``training.ppo.envworkers.GroupServer``) in a
    Ray actor, behind the local handles' interface: ``send`` returns at once, ``recv`` waits."""

    def __init__(self, server_class: type, engine: str, args: tuple, actor_args: tuple | None = None, nice: int = 0):
        self.actor = (
            _actor_class(ServerActor)
            .options(scheduling_strategy="SPREAD")
            .remote(server_class, (engine, args, actor_args), nice)
        )
        self._pending: deque[Any] = deque()
        """The answers asked for and not yet received, oldest first (the collector sends a step and then the
        play-ahead before it reads either; an actor runs one caller's calls in the order sent)."""
        self._cpu = 0.0

    def send(self, command: str, data: Any = None) -> None:
        self._pending.append(self.actor.serve.remote(command, data))

    def recv(self) -> Any:
        import ray

        answer, self._cpu = ray.get(self._pending.popleft())
        return answer

    def cpu_seconds(self) -> float:
        """The actor's CPU time as of its last answer."""
        return self._cpu

    def node_id(self) -> str:
        import ray

        return str(ray.get(self.actor.node_id.remote()))

    def close(self) -> None:
        import ray

        with contextlib.suppress(Exception):  # an actor that died or hangs is ended below all the same
            ray.get(self.actor.close.remote(), timeout=10)
        ray.kill(self.actor)


# ----- search-guided self-play -------------------------------------------------------------------------------------
def merge_played(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Several actors' ``play`` answers as one: positions and episodes added, samples and results joined in actor
    order, the wall time the longest, the time split summed, leaves per forward averaged."""
    if len(parts) == 1:
        return parts[0]
    merged: dict[str, Any] = {}
    for key, value in parts[0].items():
        values = [p[key] for p in parts]
        if key == "symmetry_source":
            merged[key] = next((v for v in values if v is not None), None)
        elif isinstance(value, list):
            merged[key] = [item for v in values for item in v]
        elif key == "seconds":
            merged[key] = max(values)
        elif key == "leaves_per_forward":
            merged[key] = float(sum(values) / len(values))
        elif isinstance(value, int | float):
            merged[key] = sum(values)
        else:
            merged[key] = value
    return merged


def split_games(num_envs: int, actors: int) -> list[int]:
    """How many of ``num_envs`` games each of ``actors`` actors plays (the first ones one more where it does not
    divide); ValueError where there are more actors than games."""
    if actors < 1 or actors > num_envs:
        raise ValueError(f"{actors} self-play actors for {num_envs} games: give 1 to num_envs actors (--num-workers)")
    return [num_envs // actors + (1 if k < num_envs % actors else 0) for k in range(actors)]


class RaySelfPlay:
    """Search-guided self-play in ``actors`` Ray actors behind the local actor's ``send`` / ``recv`` interface:
    each a ``server_class(config_data, seed)`` (``training.alphazero.selfplay.SelfPlayServer``); actor ``k`` plays
    its share of the games (:func:`split_games`) with seed ``seed`` (``k`` = 0, the local worker's) or
    ``seed + 7919 k``."""

    def __init__(self, server_class: type, config: Any, seed: int, actors: int = 1):
        shares = split_games(int(config.num_envs), int(actors))
        data = config.to_dict()
        self.actors = []
        for k, share in enumerate(shares):
            part = dict(data, num_envs=share)
            self.actors.append(
                _actor_class(ServerActor)
                .options(scheduling_strategy="SPREAD")
                .remote(server_class, (part, seed + 7919 * k))
            )
        self._pending: list[Any] = []
        self._command = ""

    def send(self, command: str, data: Any = None) -> None:
        self._command = command
        if command == "load":
            states = data["actors"] if isinstance(data, dict) and "actors" in data else [data]
            if len(states) != len(self.actors):
                raise ValueError(f"the saved run had {len(states)} self-play actors; this one has {len(self.actors)}")
            self._pending = [a.serve.remote("load", s) for a, s in zip(self.actors, states)]
        else:
            self._pending = [a.serve.remote(command, data) for a in self.actors]

    def recv(self) -> Any:
        import ray

        answers = [answer for answer, _ in ray.get(self._pending)]
        self._pending = []
        if self._command == "play":
            return merge_played(answers)
        if self._command == "state":
            return answers[0] if len(answers) == 1 else {"actors": answers}
        return answers[0]

    def node_ids(self) -> list[str]:
        import ray

        return [str(n) for n in ray.get([a.node_id.remote() for a in self.actors])]

    def close(self) -> None:
        import ray

        for actor in self.actors:
            ray.kill(actor)
