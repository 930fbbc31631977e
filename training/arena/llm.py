"""The ``llm:`` policy: a seat played by a language model behind any OpenAI-compatible chat endpoint (OpenAI, vLLM,
llama.cpp's server, Ollama, ...), through the official ``openai`` client (the ``llm`` extra; docs/llm.md).

Spec: ``llm:MODEL[@URL][,OPTION=VALUE...]``, parsed and capped by :func:`training.specs.parse_llm_spec` (``retries``,
``fallback``, ``timeout``, ``temperature``, ``seed``, ``concurrency``, ``key_env``, ``max_tokens``). The key is read
from the environment variable ``key_env`` names (default ``OPENAI_API_KEY``), never from the spec, and is never
written in a transcript.

Each decision: the prompt is :func:`envs.common.seat_view.seat_text` of the decision's *information state* (what the
harness gives the seat: another seat's hidden cards and bids are placeholders there, so they cannot reach the
prompt); the reply is read by :func:`~envs.common.seat_view.parse_reply`. The illegal-move rule: a refused reply is
answered in the same conversation with the refusal's reason, and the model asked again, up to ``retries`` times; a
request that fails (past ``timeout``, refused connection, HTTP error) counts as an ask too. When every ask failed,
the ``fallback``: ``random`` plays a uniformly random legal move from the seat's seeded generator, ``forfeit``
raises :class:`~training.arena.players.Forfeit` (the harness ends the game, the seat last). Every decision leaves a
transcript (:meth:`LLMPolicy.take_transcript`: the prompt, each ask's reply, parsed move or refusal, tokens and
latency, and the fallback used) that the harness writes in the game record.

At most ``concurrency`` requests are in flight at once from one process to one endpoint and model (a semaphore
shared by every seat and game of the process; ``--workers`` processes each have their own).
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from envs.common.policies import Decision
from envs.common.seat_view import MAX_REPLY_CHARS, ReplyError, parse_reply, seat_text
from training.arena.harness import Forfeit
from training.specs import LLMSettings

__all__ = ["SYSTEM_PROMPT", "LLMPolicy", "LLMSettings"]

SYSTEM_PROMPT = (
    "You are a player in a turn-based board or card game. Each message shows the position as your seat sees it and "
    "lists your legal moves. Choose the move you think best. You may reason briefly, then give exactly one of the "
    'listed moves (its notation or its number) on the last line as "Answer: <move>".'
)
"""The system message of every conversation."""
MAX_ERROR_CHARS = 500
"""The longest error text kept in a transcript."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
PLACEHOLDER_KEY = "not-needed"
"""Sent to a server on this machine when the key's variable is unset (local servers ignore the key)."""

_SEMAPHORES: dict[tuple[str, str, int], threading.BoundedSemaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()
_SECRET_LIKE = re.compile(r"(sk-[A-Za-z0-9_\-*]{4,}|Bearer\s+\S+)")


def endpoint_semaphore(base_url: str, model: str, limit: int) -> threading.BoundedSemaphore:
    """The process-wide semaphore of an endpoint and model with ``limit`` slots (one per distinct limit)."""
    key = (base_url, model, limit)
    with _SEMAPHORES_LOCK:
        if key not in _SEMAPHORES:
            _SEMAPHORES[key] = threading.BoundedSemaphore(limit)
        return _SEMAPHORES[key]


def is_loopback(base_url: str) -> bool:
    """Whether ``base_url`` names this machine."""
    host = urlsplit(base_url).hostname or ""
    return host in LOOPBACK or host.startswith("127.")


class LLMPolicy:
    """A seat played by a chat model (the module docstring). ``spec`` is the whole ``llm:...`` spec (its name in
    tables and records); ``settings`` its parsed form; ``seed`` seeds the fallback's generator and, unless the spec
    fixes one, the seed sent to the API. Raises ``ValueError`` when the key's variable is unset for a server that
    is not on this machine. Nothing is contacted before the first decision."""

    def __init__(self, spec: str, settings: LLMSettings, seed: int | None = None):
        self.name = spec
        self.settings = settings
        key = os.environ.get(settings.key_env)
        if not key and not is_loopback(settings.base_url):
            raise ValueError(
                f"{spec[:80]}: the API key's variable {settings.key_env} is not set (export it, or name another "
                "variable with key_env=NAME)"
            )
        self._key = key or PLACEHOLDER_KEY
        self._client: Any = None
        self._semaphore = endpoint_semaphore(settings.base_url, settings.model, settings.concurrency)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._transcript: dict[str, Any] | None = None

    def __repr__(self) -> str:  # never the key
        return f"LLMPolicy({self.name!r})"

    # ----- the Policy protocol ---------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """A new game: the fallback's generator (and the seed sent, unless the spec fixes one) from ``seed``."""
        if seed is not None:
            self.seed = seed
            self.rng = np.random.default_rng(seed)
        self._transcript = None

    def take_transcript(self) -> dict[str, Any] | None:
        """The last decision's transcript (then forgotten): ``prompt``, ``system``, ``attempts`` (each with
        ``attempt``, ``feedback`` (the message sent before it, None for the first), ``reply``, ``move`` or
        ``refusal`` or ``error``, ``tokens``, ``latency_s``), ``model``, ``seat``, ``action``, ``move`` and
        ``fallback`` (None, ``"random"`` or ``"forfeit"``)."""
        transcript, self._transcript = self._transcript, None
        return transcript

    def act(self, decision: Decision) -> int:
        """Ask the model for the seat's move (the illegal-move rule in the module docstring)."""
        game, seat, view = decision.game, decision.seat, decision.info_state
        prompt = seat_text(game, view, seat)
        messages: list[dict[str, str]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt},
        ]
        entry: dict[str, Any] = {
            "seat": seat,
            "model": self.settings.model,
            "system": SYSTEM_PROMPT,
            "prompt": prompt,
            "attempts": [],
            "action": None,
            "move": None,
            "fallback": None,
        }
        self._transcript = entry
        feedback: str | None = None
        for attempt in range(1, self.settings.retries + 2):
            record: dict[str, Any] = {
                "attempt": attempt,
                "feedback": feedback,
                "reply": None,
                "move": None,
                "refusal": None,
                "error": None,
                "tokens": None,
                "latency_s": None,
            }
            entry["attempts"].append(record)
            feedback = None
            reply = self._ask(messages, record)
            if reply is None:
                continue  # no reply: the same conversation is sent again
            try:
                action = parse_reply(game, view, seat, reply)
            except ReplyError as err:
                record["refusal"] = self._clean(str(err), shaped=False)
                feedback = (
                    f"Your answer was refused: {err}. Answer again with exactly one of the legal moves listed above "
                    '(its notation or its number), on the last line as "Answer: <move>".'
                )
                messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": feedback}]
                continue
            record["move"] = entry["move"] = game.action_to_str(view, action)
            entry["action"] = int(action)
            return int(action)
        if self.settings.fallback == "random":
            legal = decision.legal_actions()
            action = int(legal[self.rng.integers(legal.size)])
            entry.update(action=action, move=game.action_to_str(view, action), fallback="random")
            return action
        entry["fallback"] = "forfeit"
        asks = len(entry["attempts"])
        raise Forfeit(seat, f"{self.name}: no legal move after {asks} ask{'s' if asks > 1 else ''}")

    # ----- one request -----------------------------------------------------------------------------------------------
    def client(self) -> Any:
        """The ``openai`` client (made at the first request): the per-request timeout, its own retries off (the
        illegal-move rule counts every ask)."""
        if self._client is None:
            try:
                import openai
            except ImportError as err:  # pragma: no cover - the llm extra brings it
                raise ImportError(f'llm: policies need the llm extra ({err}): pip install -e ".[llm]"') from None
            self._client = openai.OpenAI(
                api_key=self._key, base_url=self.settings.base_url, timeout=self.settings.timeout, max_retries=0
            )
        return self._client

    def _ask(self, messages: list[dict[str, str]], record: dict[str, Any]) -> str | None:
        """One chat request; the reply's text, or None with ``record["error"]`` saying why there is none."""
        import openai

        s = self.settings
        options: dict[str, Any] = {}
        if s.temperature is not None:
            options["temperature"] = s.temperature
        seed = s.seed if s.seed is not None else self.seed
        if s.send_seed and seed is not None:
            options["seed"] = int(seed) % (2**31)
        if s.max_tokens is not None:
            options["max_tokens"] = s.max_tokens
        client = self.client()
        start = time.perf_counter()
        try:
            with self._semaphore:
                start = time.perf_counter()
                response = client.chat.completions.create(model=s.model, messages=list(messages), **options)
            reply = response.choices[0].message.content
            usage = response.usage
        except openai.APITimeoutError:
            record["error"] = f"timeout: no reply within {s.timeout:g} s"
            return None
        except openai.APIConnectionError as err:
            record["error"] = self._clean(f"connection failed: {err} ({s.base_url})")
            return None
        except openai.APIStatusError as err:
            record["error"] = self._clean(f"HTTP {err.status_code}: {err.message}")
            return None
        except (openai.OpenAIError, AttributeError, IndexError, TypeError, ValueError) as err:
            record["error"] = self._clean(f"malformed response: {type(err).__name__}: {err}")
            return None
        finally:
            record["latency_s"] = round(time.perf_counter() - start, 4)
        if usage is not None:
            record["tokens"] = {
                "prompt": getattr(usage, "prompt_tokens", None),
                "completion": getattr(usage, "completion_tokens", None),
                "total": getattr(usage, "total_tokens", None),
            }
        text = reply if isinstance(reply, str) else ""
        if self._key != PLACEHOLDER_KEY and self._key in text:
            text = text.replace(self._key, "[key]")
        record["reply"] = text[: MAX_REPLY_CHARS + 1]
        return text

    def _clean(self, text: str, shaped: bool = True) -> str:
        """``text`` for a transcript: the key (and, with ``shaped``, anything shaped like a key: an error may quote
        one, masked or not) blanked, at most :data:`MAX_ERROR_CHARS` characters."""
        if self._key != PLACEHOLDER_KEY:
            text = text.replace(self._key, "[key]")
        if shaped:
            text = _SECRET_LIKE.sub("[key]", text)
        return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."
