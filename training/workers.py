"""A spawned worker process that takes ``(command, data)`` messages over a pipe: PPO's env workers
(:class:`training.ppo.collect.RemoteHandle`) and search-guided self-play's actor
(:class:`training.alphazero.selfplay.RemoteActor`).
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any, Callable


class PipeWorker:
    """``target(conn, *args)`` in a spawned daemon process; ``send`` returns at once, ``recv`` waits for an answer,
    ``close`` asks the process to stop and ends it if it does not within 5 s."""

    def __init__(self, target: Callable[..., None], args: tuple):
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=target, args=(child, *args), daemon=True)
        self.process.start()
        child.close()

    def send(self, command: str, data: Any = None) -> None:
        self.conn.send((command, data))

    def recv(self) -> Any:
        return self.conn.recv()

    def close(self) -> None:
        try:
            self.conn.send(("close", None))
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.terminate()
