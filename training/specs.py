"""The arguments of policy specs, parsed and capped in one place, whatever their source: a spec typed on the command
line or chosen on the web page, or a checkpoint's sidecar (its declared ``play``, its training run's search
budget). Every count is checked as text against its cap before it is converted or anything is allocated, and an
error names the cap (:class:`~envs.common.policies.PolicySpecError`). No torch here: the web app checks specs and
its catalogue's declared plays with it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from envs.common.policies import MAX_BUDGET, PolicySpecError, parse_count

MAX_SIMULATIONS = MAX_BUDGET
"""Largest ``search:N`` and ``guided:PATH:K:N`` budget N (the compiled searches: about a second a move on a slow
core at the cap)."""
MAX_NETWORK_SIMULATIONS = 1_000
"""Largest ``mcts:PATH:N`` budget, and the most ``mcts:PATH`` takes from its training run (one network call and
one tree node a simulation)."""
MAX_TOP_K = 1_000
"""Largest ``guided:PATH:K`` K (moves searched at the root)."""
PLAY_KINDS = ("network", "sample", "sym", "guided", "mcts")
"""How a checkpoint can declare it is played (its sidecar's ``"play"``): ``network`` (the argmax of its network:
the default), ``sample[:T]``, ``sym``, ``guided[:K[:N]]`` or ``mcts[:N]``, the spec kinds of
:func:`training.arena.players.make_policy` without the path."""
MAX_PLAY = 64
"""Longest declared ``play`` (characters)."""

__all__ = [
    "MAX_NETWORK_SIMULATIONS",
    "MAX_PLAY",
    "MAX_SIMULATIONS",
    "MAX_TOP_K",
    "LLMSettings",
    "PLAY_KINDS",
    "PolicySpecError",
    "check_play",
    "declared_simulations",
    "parse_guided_spec",
    "parse_llm_spec",
    "parse_mcts_spec",
    "parse_sample_spec",
    "parse_temperature",
]


def parse_sample_spec(arg: str) -> tuple[str, str]:
    """A ``sample:`` spec's argument as ``(checkpoint, temperature text)``, the text empty where none is given
    (``PATH`` or ``PATH:T``; a last part ending in ``.pt`` / ``.json`` is the path's)."""
    head, _, tail = arg.rpartition(":")
    if head and not tail.endswith((".pt", ".json")):
        return head, tail
    return arg, ""


def parse_temperature(text: str, what: str = "sample:PATH:T") -> float:
    """A sampling temperature: a number above 0 and finite (:class:`PolicySpecError` otherwise)."""
    try:
        temperature = float(text)
    except ValueError:
        raise PolicySpecError(f"{what}: the temperature {text[:20]!r} is not a number") from None
    if not (temperature > 0.0 and math.isfinite(temperature)):
        raise PolicySpecError(f"{what}: the temperature must be above 0 and finite")
    return temperature


def parse_mcts_spec(arg: str) -> tuple[str, int | None]:
    """An ``mcts:`` spec's argument (``PATH`` or ``PATH:N``) as ``(PATH, N or None)``, N from 1 to
    :data:`MAX_NETWORK_SIMULATIONS`; a last part that is not digits is the path's."""
    path, _, count = arg.rpartition(":")
    if not (path and count.isdigit()):
        return arg, None
    return path, parse_count(count, "mcts:PATH:N", MAX_NETWORK_SIMULATIONS)


def parse_guided_spec(arg: str) -> tuple[str, int | None, int | None]:
    """A ``guided:`` spec's argument (``PATH``, ``PATH:K`` or ``PATH:K:N``) as ``(PATH, K or None, N or None)``,
    K from 1 to :data:`MAX_TOP_K`, N from 1 to :data:`MAX_SIMULATIONS`; trailing parts that are not digits are the
    path's."""
    parts = arg.split(":")
    numbers: list[str] = []
    while len(parts) > 1 and parts[-1].isdigit() and len(numbers) < 2:
        numbers.insert(0, parts.pop())
    top_k = parse_count(numbers[0], "guided:PATH:K (K, moves searched)", MAX_TOP_K) if numbers else None
    budget = parse_count(numbers[1], "guided:PATH:K:N (N, simulations)", MAX_SIMULATIONS) if numbers[1:] else None
    return ":".join(parts), top_k, budget


def check_play(play: Any) -> str:
    """``play`` if it is a :data:`PLAY_KINDS` entry whose arguments parse as that spec's would, each count within
    its cap (``guided:24:20``; not ``guided:999999999:999999999``); :class:`PolicySpecError` otherwise."""
    kinds = ", ".join(PLAY_KINDS)
    if not isinstance(play, str) or len(play) > MAX_PLAY:
        raise PolicySpecError(f"'play' must be one of {kinds} with its arguments, at most {MAX_PLAY} characters")
    kind, colon, args = play.partition(":")
    if kind not in PLAY_KINDS:
        raise PolicySpecError(f"'play' must be one of {kinds} with its arguments, not {play[:20]!r}")
    arg = "PATH" + (f":{args}" if colon else "")  # parsed as the spec agent:PATH turns it into
    try:
        if kind in ("network", "sym"):
            path = "PATH" if not colon else ""
        elif kind == "sample":
            path, tail = parse_sample_spec(arg)
            if tail or colon:
                parse_temperature(tail, "sample:T")
        elif kind == "mcts":
            path = parse_mcts_spec(arg)[0]
        else:
            path = parse_guided_spec(arg)[0]
    except PolicySpecError as err:
        raise PolicySpecError(f"'play' {play[:30]!r}: {err}") from None
    if path != "PATH":
        raise PolicySpecError(f"'play' {play[:20]!r}: {kind} does not take the arguments {args[:20]!r}")
    return play


def declared_simulations(meta: dict[str, Any], simulations: int | None = None) -> int:
    """The simulations ``mcts:PATH[:N]`` searches with for the checkpoint of sidecar ``meta``: ``simulations`` (N)
    where given, else its training run's (an AlphaZero run's ``config.simulations``; 16 for a PPO checkpoint),
    from 1 to :data:`MAX_NETWORK_SIMULATIONS` whatever the source (:class:`PolicySpecError` naming the cap)."""

    def within(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_NETWORK_SIMULATIONS

    if simulations is not None:
        if not within(simulations):
            raise PolicySpecError(f"mcts:PATH:N takes a whole number from 1 to {MAX_NETWORK_SIMULATIONS:,}")
        return simulations
    config = meta.get("config")
    trained = config.get("simulations", 16) if meta.get("algo") == "alphazero" and isinstance(config, dict) else 16
    if not within(trained):
        raise PolicySpecError(
            f"its sidecar's training run searched {str(trained)[:20]} simulations a move; mcts:PATH takes at most "
            f"{MAX_NETWORK_SIMULATIONS:,} (give mcts:PATH:N, N from 1 to {MAX_NETWORK_SIMULATIONS:,})"
        )
    return int(trained)


# ----- llm:MODEL@URL,OPTION=VALUE,... -------------------------------------------------------------------------------
LLM_DEFAULT_URL = "https://api.openai.com/v1"
"""The endpoint of ``llm:MODEL`` when the spec names none (OpenAI's API)."""
MAX_LLM_SPEC = 300
"""Longest ``llm:`` spec (characters; the web page's longest seat spec too)."""
MAX_LLM_RETRIES = 10
"""Most ``retries=K`` (asks after the first, on one decision)."""
MAX_LLM_TIMEOUT = 600.0
"""Longest ``timeout=S`` (seconds a request may take)."""
MIN_LLM_TIMEOUT = 0.05
MAX_LLM_CONCURRENCY = 64
"""Most ``concurrency=N`` (requests at once from one process to one endpoint)."""
MAX_LLM_TOKENS = 100_000
"""Most ``max_tokens=N``."""
MAX_LLM_SEED = 2**31 - 1
LLM_FALLBACKS = ("forfeit", "random")
"""What a seat does when every ask of a decision failed: ``forfeit`` (it loses the game) or ``random`` (a uniformly
random legal move from its seeded generator)."""
LLM_OPTIONS = ("retries", "fallback", "timeout", "temperature", "seed", "concurrency", "key_env", "max_tokens")
_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/+\-]{0,199}")
"""A model name: ``gpt-4o-mini``, ``Qwen/Qwen2.5-7B-Instruct``, ``llama3.1:8b`` (no ``@``, ``,``, spaces)."""
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


@dataclass(frozen=True)
class LLMSettings:
    """An ``llm:`` spec parsed (:func:`parse_llm_spec`): where to ask, and the illegal-move rule."""

    model: str
    base_url: str
    """The OpenAI-compatible API's base URL (``.../v1``); the chat endpoint is ``{base_url}/chat/completions``."""
    retries: int = 2
    """Asks after the first on one decision when a reply is refused or none comes (timeout, HTTP error)."""
    fallback: str = "forfeit"
    timeout: float = 60.0
    """Seconds one request may take (connect and read), the client's own retries off."""
    temperature: float | None = None
    """Sent as given; None: not sent (the server's default)."""
    seed: int | None = None
    """Sent with every request; None: the seat's game seed (the harness's), so a tournament seed fixes it."""
    send_seed: bool = True
    """False for ``seed=none``: no seed is sent."""
    concurrency: int = 4
    key_env: str = "OPENAI_API_KEY"
    """The environment variable holding the API key (never the key itself: a spec is written in records)."""
    max_tokens: int | None = None


def _llm_number(text: str, what: str, low: float, high: float) -> float:
    if len(text) > 20:
        raise PolicySpecError(f"llm: {what} takes a number from {low:g} to {high:g}, not {text[:19]!r}...")
    try:
        value = float(text)
    except ValueError:
        raise PolicySpecError(f"llm: {what} takes a number from {low:g} to {high:g}, not {text!r}") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise PolicySpecError(f"llm: {what} takes a number from {low:g} to {high:g}, not {text!r}")
    return value


def _check_url(url: str) -> str:
    """An http(s) base URL with a host and no credentials, query or fragment (a spec is written in records)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as err:
        raise PolicySpecError(f"llm: the URL {url[:60]!r} is not a URL ({err})") from None
    if parts.scheme not in ("http", "https"):
        raise PolicySpecError(
            f"llm: the URL {url[:60]!r} must start with http:// or https:// (an OpenAI-compatible API's base URL, "
            "e.g. http://127.0.0.1:8000/v1)"
        )
    if not parts.hostname:
        raise PolicySpecError(f"llm: the URL {url[:60]!r} names no host")
    if parts.username is not None or parts.password is not None:
        raise PolicySpecError(
            "llm: the URL may not hold credentials (user:password@): specs are written in game records; "
            "give the key in an environment variable (key_env=NAME)"
        )
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise PolicySpecError("llm: the URL may not have a query or fragment (?...#...): specs are written in records")
    del port
    return url.rstrip("/")


def parse_llm_spec(arg: str) -> LLMSettings:
    """An ``llm:`` spec's argument, ``MODEL[@URL][,OPTION=VALUE...]``, as :class:`LLMSettings`; every option named
    and within its range (:class:`PolicySpecError` saying which and why otherwise), nothing contacted.

    Options: ``retries`` (0 to :data:`MAX_LLM_RETRIES`, default 2), ``fallback`` (``forfeit`` or ``random``,
    default ``forfeit``), ``timeout`` (seconds, :data:`MIN_LLM_TIMEOUT` to :data:`MAX_LLM_TIMEOUT`, default 60),
    ``temperature`` (0 to 2; default: not sent), ``seed`` (0 to 2**31-1, or ``none``; default: the seat's game
    seed), ``concurrency`` (1 to :data:`MAX_LLM_CONCURRENCY`, default 4), ``key_env`` (the variable holding the
    key, default ``OPENAI_API_KEY``), ``max_tokens`` (1 to :data:`MAX_LLM_TOKENS`; default: not sent)."""
    if len(arg) + 4 > MAX_LLM_SPEC:
        raise PolicySpecError(f"an llm: spec has at most {MAX_LLM_SPEC} characters")
    head, *extras = arg.split(",")
    model, at, url = head.partition("@")
    if not model:
        raise PolicySpecError(
            "llm: give a model: llm:MODEL@URL (e.g. llm:gpt-4o-mini@https://api.openai.com/v1, or "
            "llm:qwen2.5:7b@http://127.0.0.1:11434/v1)"
        )
    if not _MODEL.fullmatch(model):
        raise PolicySpecError(
            f"llm: {model[:40]!r} is not a model name (letters, digits and . _ : / + -, at most 200 characters)"
        )
    if at and not url:
        raise PolicySpecError("llm: give the API's base URL after @ (e.g. http://127.0.0.1:8000/v1), or leave out @")
    fields: dict[str, Any] = {"model": model, "base_url": _check_url(url) if at else LLM_DEFAULT_URL}
    seen: set[str] = set()
    for extra in extras:
        name, eq, value = extra.partition("=")
        name = name.strip()
        value = value.strip()
        if name not in LLM_OPTIONS:
            if name in ("key", "api_key"):
                raise PolicySpecError(
                    "llm: a spec never holds the key (it is written in game records): put the key in an environment "
                    "variable and name it with key_env=NAME (default OPENAI_API_KEY)"
                )
            raise PolicySpecError(f"llm: unknown option {name[:30]!r}; the options are {', '.join(LLM_OPTIONS)}")
        if not eq or not value:
            raise PolicySpecError(f"llm: option {name} needs a value ({name}=...)")
        if name in seen:
            raise PolicySpecError(f"llm: option {name} is given twice")
        seen.add(name)
        if name == "retries":
            fields[name] = parse_count_from_zero(value, "llm: retries", MAX_LLM_RETRIES)
        elif name == "concurrency":
            fields[name] = parse_count(value, "llm: concurrency", MAX_LLM_CONCURRENCY)
        elif name == "max_tokens":
            fields[name] = parse_count(value, "llm: max_tokens", MAX_LLM_TOKENS)
        elif name == "timeout":
            fields[name] = _llm_number(value, "timeout (seconds)", MIN_LLM_TIMEOUT, MAX_LLM_TIMEOUT)
        elif name == "temperature":
            fields[name] = _llm_number(value, "temperature", 0.0, 2.0)
        elif name == "seed":
            if value.lower() == "none":
                fields["send_seed"] = False
            else:
                fields[name] = parse_count_from_zero(value, "llm: seed", MAX_LLM_SEED)
        elif name == "fallback":
            if value not in LLM_FALLBACKS:
                raise PolicySpecError(f"llm: fallback is {' or '.join(LLM_FALLBACKS)}, not {value[:20]!r}")
            fields[name] = value
        elif name == "key_env":
            if not _ENV_NAME.fullmatch(value):
                raise PolicySpecError(
                    f"llm: key_env names an environment variable (letters, digits, _), not {value[:20]!r}"
                )
            fields[name] = value
    return LLMSettings(**fields)


def parse_count_from_zero(text: str, what: str, most: int) -> int:
    """``text`` as a whole number from 0 to ``most`` (checked as text first, as :func:`parse_count` does)."""
    if text == "0":
        return 0
    try:
        return parse_count(text, what, most)
    except PolicySpecError:
        raise PolicySpecError(f"{what} takes a whole number from 0 to {most:,}, not {text[:20]!r}") from None
