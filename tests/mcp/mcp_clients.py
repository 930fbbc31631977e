"""Helpers of the MCP tests (not a test module): the SDK's own ``ClientSession`` behind a plain blocking face, over
stdio (a ``python -m training mcp`` subprocess), over streamable HTTP, or in-process; ``barnyard mcp --http`` as a
subprocess; and which addresses a process listens on (read from ``/proc``)."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0
"""Seconds a call may take before the test fails (a hang is a failure, not a stuck suite)."""


class Refused(Exception):
    """A tool call that answered an error (``is_error``): its text."""


def server_env() -> dict[str, str]:
    """The environment of a server subprocess: this one, this checkout first on the path, the example game
    registered (tests/conftest.py set ``PYTHONPATH`` and ``BARNYARD_GAMES``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    return env


class McpClient:
    """One MCP client session, called from plain (blocking) test code through an anyio portal."""

    def __init__(self, portal: BlockingPortal, session: Any):
        self.portal = portal
        self.session = session

    def result(self, tool: str, args: dict[str, Any]) -> Any:
        """The raw ``CallToolResult`` of one call."""
        return self.portal.call(lambda: self.session.call_tool(tool, args, read_timeout_seconds=TIMEOUT))

    def call(self, tool: str, **args: Any) -> dict[str, Any]:
        """A tool's structured answer; :class:`Refused` with its text for an error."""
        result = self.result(tool, args)
        if result.is_error:
            raise Refused(result.content[0].text)
        assert json.loads(result.content[0].text) == result.structured_content  # the text is the same JSON
        return result.structured_content

    def refused(self, tool: str, **args: Any) -> str:
        """The error text of a call that must be refused."""
        result = self.result(tool, args)
        assert result.is_error, f"{tool} was not refused: {result.structured_content}"
        return result.content[0].text

    def tools(self) -> list[Any]:
        return self.portal.call(self.session.list_tools).tools


@contextlib.contextmanager
def session_over(portal: BlockingPortal, transport: Any) -> Iterator[McpClient]:
    """A ``ClientSession`` over the streams of ``transport`` (an async context manager), initialized."""
    from mcp.client.session import ClientSession

    with portal.wrap_async_context_manager(transport) as streams:
        read, write = streams[0], streams[1]
        with portal.wrap_async_context_manager(ClientSession(read, write, read_timeout_seconds=TIMEOUT)) as session:
            portal.call(session.initialize)
            yield McpClient(portal, session)


@contextlib.contextmanager
def stdio_client(*args: str) -> Iterator[McpClient]:
    """A client of ``python -m training mcp ARGS`` started as a subprocess (the SDK's ``stdio_client``)."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "training", "mcp", *args], cwd=str(ROOT), env=server_env()
    )
    with start_blocking_portal() as portal, session_over(portal, stdio_client(params)) as client:
        yield client


@contextlib.contextmanager
def http_client(url: str) -> Iterator[McpClient]:
    """A client of the streamable HTTP server at ``url`` (the SDK's ``streamable_http_client``)."""
    from mcp.client.streamable_http import streamable_http_client

    with start_blocking_portal() as portal, session_over(portal, streamable_http_client(url)) as client:
        yield client


@contextlib.contextmanager
def in_process(server: Any) -> Iterator[McpClient]:
    """A client of ``server`` (an MCPServer of this process), through the SDK's ``Client``."""
    from mcp.client import Client

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(server)) as client:
        yield McpClient(portal, client.session)


def reply_for(move: dict, k: int) -> object:
    """The move in one of the forms a client may send it, by turns: notation, number, JSON, free text."""
    return [
        move["notation"],
        move["number"],
        {"move": move["notation"]},
        f"Let me think.\nThe best is clear.\nAnswer: {move['notation'].upper()}",
    ][k % 4]


def play_out(client: McpClient, game_id: str, token: str, rng: random.Random, most: int = 2000) -> dict:
    """Play one MCP seat to the end with random legal moves (in turn in every form); the final result."""
    for k in range(most):
        listed = client.call("legal_moves", game_id=game_id, token=token)
        if listed["status"] == "over":
            return client.call("result", game_id=game_id, token=token)
        assert listed["status"] == "your_turn", listed  # alone against policies: they have moved when a call returns
        move = rng.choice(listed["moves"])
        answer = client.call("play_move", game_id=game_id, token=token, move=reply_for(move, k), format="json")
        assert answer["accepted"] == move["notation"] and answer["action"] == move["action"]
        assert answer["view"]["seat"] == answer["seat"]
    raise AssertionError(f"not over after {most} moves")


def free_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


@contextlib.contextmanager
def http_server(*args: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """``python -m training mcp --http --port P ARGS`` as a subprocess: ``(process, URL)`` once it listens."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "training", "mcp", "--http", "--port", str(port), *args],
        cwd=ROOT,
        env=server_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not listening(process.pid):
            if process.poll() is not None:
                raise AssertionError(f"barnyard mcp --http exited: {process.stderr.read()}")
            if time.monotonic() > deadline:
                raise AssertionError("barnyard mcp --http did not listen within 60 s")
            time.sleep(0.05)
        yield process, f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()


def _address(hex_address: str) -> str:
    """A ``/proc/net/tcp{,6}`` local address (``0100007F:1F90``) as ``ip:port``."""
    ip_hex, port_hex = hex_address.split(":")
    raw = bytes.fromhex(ip_hex)
    raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))  # each 32-bit word is little-endian
    return f"{ipaddress.ip_address(raw)}:{int(port_hex, 16)}"


def listening(pid: int) -> list[str]:
    """The ``ip:port`` of every TCP socket process ``pid`` listens on (Linux: its fds and ``/proc/net``)."""
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir() if fd_dir.exists() else ():
        with contextlib.suppress(OSError):
            link = os.readlink(fd)
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    found.append(_address(fields[1]))
    return found


def beyond_loopback(addresses: list[str]) -> list[str]:
    """The addresses that other machines could reach (not 127.0.0.0/8 or ::1)."""
    out = []
    for address in addresses:
        ip = ipaddress.ip_address(address.rsplit(":", 1)[0])
        mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1
        if not (mapped or ip).is_loopback:
            out.append(address)
    return out
