"""A spawned worker process that takes ``(command, data)`` messages over a pipe: PPO's env workers
(:class:`training.ppo.collect.RemoteHandle`) and search-guided self-play's actor
(:class:`training.alphazero.selfplay.RemoteActor`).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
from collections.abc import Callable
from typing import Any


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def thread_counts(torch_threads: int, small_network: bool = False) -> tuple[int, int]:
    """Torch threads ``(rollouts, update)`` for config ``torch_threads`` (0: torch's default, left as it is).

    -1 (by phase): one thread for the rollouts' forward passes (the env workers use the other cores then); for the
    update one thread where the network is small (``small_network``: the MLP of flat observations), else every
    usable core. A small network's update is many short parallel regions, and each one waits for its slowest
    thread: with any other busy process on the machine (a browser, another run, even at ``nice 15``) two threads
    made Beasty Borders' training 20x slower (docs/speed.md); one thread gives up a third of the update's speed on
    an idle machine and none on a busy one."""
    if torch_threads == -1:
        return 1, 1 if small_network else usable_cores()
    if torch_threads < -1:
        raise ValueError(f"torch_threads={torch_threads}; allowed: -1 (by phase), 0 (torch's default) or k > 0")
    return torch_threads, torch_threads


def set_threads(threads: int) -> None:
    """``torch.set_num_threads(threads)`` unless it is 0 or already so (switching costs a little)."""
    import torch

    if threads and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def use_one_core() -> None:
    """One thread for torch and for numba's parallel kernels (e.g. Bestiarium's batched observation): a worker
    process shares the machine with the trainer and the other workers."""
    import numba
    import torch

    torch.set_num_threads(1)
    numba.set_num_threads(1)


BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""Environment variables that cap numpy's BLAS threads, set to 1 for a worker process unless the user set them:
numpy reads them when it is imported, and a worker's small matrix products (the env workers' numpy forward passes,
``training.networks.NumpyMLP``) spun OpenBLAS threads against the other processes on the cores (Boaring's worker
time went from 62 to 466 us a sample)."""


@contextlib.contextmanager
def one_blas_thread() -> Any:
    """The BLAS thread variables at 1 while a process is spawned (those the user set are kept)."""
    added = [name for name in BLAS_THREAD_VARIABLES if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


class PipeWorker:
    """``target(conn, *args)`` in a spawned daemon process (one BLAS thread: :func:`one_blas_thread`); ``send``
    returns at once, ``recv`` waits for an answer, ``close`` asks the process to stop and ends it if it does not
    within 5 s."""

    def __init__(self, target: Callable[..., None], args: tuple):
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=target, args=(child, *args), daemon=True)
        with one_blas_thread():
            self.process.start()
        child.close()

    def send(self, command: str, data: Any = None) -> None:
        self.conn.send((command, data))

    def cpu_seconds(self) -> float:
        """The worker's CPU time so far (user + system, from ``/proc``; 0 where that cannot be read)."""
        try:
            with open(f"/proc/{self.process.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def recv(self) -> Any:
        return self.conn.recv()

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            self.conn.send(("close", None))
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.terminate()
