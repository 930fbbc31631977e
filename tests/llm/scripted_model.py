"""A scripted "language model" behind a small OpenAI-compatible server, for tests without a network.

``POST /v1/chat/completions`` answers as the OpenAI API does (``choices[0].message.content``, ``usage``), by a rule
the request's model name picks. The rule reads the seat's legal moves from the prompt itself (the numbered list
that :func:`envs.common.seat_view.seat_text` writes under "Your legal moves"), so it knows only what the seat is
shown, and chooses deterministically from a hash of the request (model, messages, seed): the same request always
gets the same answer.

Models (``scripted-<rule>``):

* ``legal``: a legal move's notation after a line of reasoning (``Answer: <notation>``);
* ``number``: a legal move's number in the list;
* ``json``: ``{"move": "<notation>"}``;
* ``garbage``: text that names no move (always refused);
* ``illegal``: a move number past the end of the list (always refused);
* ``slow``: waits ``slow_seconds`` before a legal answer (past any test's timeout);
* ``mixed``: one of the above by the hash: mostly legal (notation, number, JSON), sometimes garbage or illegal,
  rarely slow;
* ``quick``: as ``mixed``, never slow (its games do not depend on the clock, however loaded the machine);
* ``unauthorized``: HTTP 401 whose message quotes the request's bearer key (as some servers do), to check that no
  key reaches a record;
* ``first``: the first listed move's notation, always (a deterministic player for comparisons).

:func:`serve_scripted` runs it with uvicorn on 127.0.0.1 and a free port in a thread of the test process (``python -m
tests.llm.scripted_model --port 8765`` serves it on its own, for trying the commands by hand). Every
request is kept in ``ScriptedModel.requests`` (the tests read the prompts a seat was sent).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

MOVE_LINE = re.compile(r"^\s+(\d+)\. (.+)$")
GARBAGE = ("I am not sure what to do here.", "Answer: ???", "Let me think... the board is very interesting!")
MIXED = ("legal",) * 6 + ("number",) * 3 + ("json",) * 2 + ("garbage",) * 2 + ("illegal",) * 2
"""The rules ``scripted-mixed`` draws from (by the request's hash), then ``slow`` once in :data:`SLOW_ONE_IN`."""
SLOW_ONE_IN = 40


def listed_moves(prompt: str) -> list[str]:
    """The notations listed under "Your legal moves" in a seat's prompt, in order (their numbers are 1, 2, ...)."""
    lines = prompt.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("It is your turn. Your legal moves"):
            moves = []
            for row in lines[i + 1 :]:
                m = MOVE_LINE.match(row)
                if m is None:
                    break
                moves.append(m.group(2))
            return moves
    return []


def request_hash(model: str, messages: list[dict[str, Any]], seed: Any) -> int:
    """A number fixed by the request's content (what decides its answer)."""
    text = json.dumps([model, messages, seed], sort_keys=True)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def scripted_reply(model: str, messages: list[dict[str, Any]], seed: Any) -> tuple[str, str]:
    """``(rule, reply text)`` of the scripted model ``model`` for a conversation (the first user message is the
    seat's prompt)."""
    prompt = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
    moves = listed_moves(str(prompt))
    h = request_hash(model, messages, seed)
    rule = model.removeprefix("scripted-")
    if rule in ("mixed", "quick"):
        slow = rule == "mixed" and h % SLOW_ONE_IN == 0
        rule = "slow" if slow else MIXED[(h // SLOW_ONE_IN) % len(MIXED)]
    if not moves:
        return rule, "I see no moves to choose from."
    k = (h >> 16) % len(moves)
    if rule == "first":
        return rule, moves[0]
    if rule in ("legal", "slow"):
        return rule, f"Looking at the position, move {k + 1} seems reasonable.\nAnswer: {moves[k]}"
    if rule == "number":
        return rule, str(k + 1)
    if rule == "json":
        return rule, json.dumps({"move": moves[k]})
    if rule == "illegal":
        return rule, f"Answer: {len(moves) + 1 + h % 7}"
    if rule == "garbage":
        return rule, GARBAGE[h % len(GARBAGE)]
    return rule, f"unknown scripted model {model!r}"


@dataclass
class ScriptedModel:
    """The server's state: the requests it got and how long ``slow`` waits."""

    slow_seconds: float = 5.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def app(self) -> Any:
        """The Starlette app of ``POST /v1/chat/completions``."""
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        async def completions(request: Request) -> JSONResponse:
            body = await request.json()
            model, messages, seed = body.get("model", ""), body.get("messages", []), body.get("seed")
            with self.lock:
                self.requests.append(
                    {
                        "model": model,
                        "messages": messages,
                        "seed": seed,
                        "temperature": body.get("temperature"),
                        "max_tokens": body.get("max_tokens"),
                        "authorization": request.headers.get("authorization", ""),
                    }
                )
            if model == "scripted-unauthorized":
                key = request.headers.get("authorization", "").removeprefix("Bearer ")
                message = f"Incorrect API key provided: {key}. You can find your API key at the provider."
                return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status_code=401)
            rule, text = scripted_reply(model, messages, seed)
            if rule == "slow":  # wait, unless the client gives up first (then nobody reads the answer)
                deadline = time.monotonic() + self.slow_seconds
                while time.monotonic() < deadline:
                    if await request.is_disconnected():
                        return JSONResponse({"error": {"message": "the client left"}}, status_code=499)
                    await asyncio.sleep(0.02)
            prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
            completion_tokens = len(text.split())
            return JSONResponse(
                {
                    "id": f"chatcmpl-scripted-{request_hash(model, messages, seed):016x}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                            "logprobs": None,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                }
            )

        return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_scripted(slow_seconds: float = 5.0) -> Iterator[tuple[str, ScriptedModel]]:
    """Run the scripted model with uvicorn on 127.0.0.1 and a free port, in a daemon thread; yields ``(base URL
    ending in /v1, the ScriptedModel)`` and stops the server on exit (a slow answer still waiting is dropped)."""
    import uvicorn

    model = ScriptedModel(slow_seconds=slow_seconds)
    port = free_port()
    config = uvicorn.Config(
        model.app(), host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1, lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="scripted-model", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the scripted model's server did not start")
        time.sleep(0.02)
    addresses = {s.getsockname()[0] for srv in server.servers for s in srv.sockets}
    if addresses != {"127.0.0.1"}:
        raise RuntimeError(f"the scripted model listens on {addresses}, not only on loopback")
    try:
        yield f"http://127.0.0.1:{port}/v1", model
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def main(argv: list[str] | None = None) -> None:
    """``python -m tests.llm.scripted_model [--port 8765] [--slow-seconds 5]``: serve the scripted model on
    127.0.0.1 until Ctrl-C (docs/llm.md's measured example)."""
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--slow-seconds", type=float, default=5.0, help="how long scripted-slow answers take")
    args = parser.parse_args(argv)
    print(f"scripted model on http://127.0.0.1:{args.port}/v1 (Ctrl-C stops)")
    app = ScriptedModel(slow_seconds=args.slow_seconds).app()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", timeout_graceful_shutdown=1)


if __name__ == "__main__":
    main()
