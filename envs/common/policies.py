"""The policy interface shared by scripted baselines and trained checkpoints.

A policy is asked for one decision at a time. It gets a :class:`Decision`: what its seat may see (the
observation tensor, the action mask, and an *information state*: an engine state with every hidden part that the
seat cannot know replaced by placeholders) and returns a legal action id. Scripted policies read the
information state through the game's engine; learned ones read the observation. Neither ever sees another
player's hidden cards, because the decision does not hold them.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from envs.common.game import Game


@dataclass(frozen=True)
class Decision:
    """One decision point, as the deciding seat sees it."""

    game: Game
    seat: int
    info_state: Any
    """``game.information_state(state, seat)``: a copy the policy may explore freely."""
    observation: np.ndarray
    action_mask: np.ndarray

    def legal_actions(self) -> np.ndarray:
        """Legal action ids, ascending."""
        return np.flatnonzero(self.action_mask.view(bool))  # bool view: ~15x faster than int8 nonzero


@runtime_checkable
class Policy(Protocol):
    """Anything with a ``name`` and ``act(decision) -> action``. ``reset(seed)`` starts a new game."""

    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, decision: Decision) -> int: ...


def decision_from_state(game: Game, state: Any, seat: int | None = None) -> Decision:
    """The decision of ``seat`` (default: the player to move) in ``state``."""
    if seat is None:
        seat = game.current_player(state)
    mask = game.legal_mask(state) if seat == game.current_player(state) else np.zeros(game.num_actions, np.int8)
    return Decision(game, seat, game.information_state(state, seat), game.observation(state, seat), mask)


class SeededPolicy:
    """Base of the scripted policies: the game's engine and a seeded generator; ``reset(seed)`` re-seeds."""

    name = "policy"

    def __init__(self, game: Game, seed: int | None = None):
        self.game = game
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        raise NotImplementedError


class CompiledRootSearch:
    """The search-policy wrapper of every game's ``search`` baseline, run by the game's compiled search
    (``self.compiled``, an :class:`envs.common.fastsearch.CompiledSearch`; None when it runs on ``rules.py``): the
    decision (:meth:`act`), and the decision with its root restricted (:meth:`act_among`: ``guided:``'s
    network-pruned search, ``training/alphazero/guided.py``). A game's baseline mixes it in before its policy base
    (``SeededPolicy``, or ``MCTSPolicy`` where the search also runs on ``rules.py``) and sets ``compiled``,
    ``budget`` (and the base's ``rng``)."""

    compiled: Any
    budget: int
    rng: np.random.Generator

    def act(self, decision: Decision) -> int:
        """The only legal action where there is one (no search, no draw); else the compiled search's move
        (:meth:`act_among` over the search's own candidates), or, without a compiled search, the next base's
        ``act`` (``MCTSPolicy``'s search on ``rules.py``)."""
        legal = decision.legal_actions()
        if legal.size == 1:
            return int(legal[0])
        if self.compiled is None:
            return super().act(decision)  # type: ignore[misc]  # the policy base after this mixin
        return self.act_among(decision, None)

    def act_among(
        self,
        decision: Decision,
        root_actions: np.ndarray | None,
        budget: int | None = None,
        root_visits: np.ndarray | None = None,
    ) -> int:
        """The compiled search's move with the root's children restricted to ``root_actions`` (distinct legal ids,
        tried in that order; None: the search's own candidates) and ``budget`` simulations (default: the
        policy's); ``root_visits`` (int64, one per action), when given, receives the root children's visit counts.
        A uniformly random legal action (this policy's generator) when the search expanded no legal child."""
        if self.compiled is None:
            raise ValueError(f"{type(self).__name__}.act_among needs the compiled search (the default settings)")
        budget = self.budget if budget is None else budget
        action = self.compiled(decision.info_state, self.rng, root_actions, budget, root_visits)
        if action >= 0:
            return int(action)
        legal = decision.legal_actions()
        return int(legal[int(self.rng.integers(legal.size))])


class RandomPolicy:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions()
        if legal.size == 0:
            raise ValueError("no legal action to choose from")
        return int(legal[self.rng.integers(legal.size)])


class FirstLegalPolicy:
    """Always the lowest legal action id: a policy that is exploitable by construction (it never adapts and
    ignores the position), the yardstick of ``barnyard exploit``'s tests. Spec ``first``."""

    name = "first"

    def __init__(self, seed: int | None = None):
        del seed  # deterministic: nothing to seed

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions()
        if legal.size == 0:
            raise ValueError("no legal action to choose from")
        return int(legal[0])


def baseline_policies(game: str) -> dict[str, Any]:
    """The scripted baselines of ``game`` by name, ``envs/<game>/baselines.py``'s ``POLICIES`` (``random`` is not
    among them: it is :class:`RandomPolicy` for every game); empty for a game without that module."""
    import envs

    try:
        return dict(envs.game_info(game).room("baselines").POLICIES)
    except ModuleNotFoundError:
        return {}


MAX_BUDGET = 10_000
"""Largest ``NAME:BUDGET`` a baseline spec takes (``search:10000``: about a second a move on a slow core; a larger
budget is a search that holds a machine, and the compiled searches size their trees by it)."""


class PolicySpecError(ValueError):
    """A policy spec with an argument its kind does not take, or a number out of its range (the message names
    the range)."""


def parse_count(text: str, what: str, most: int) -> int:
    """``text`` as a whole number from 1 to ``most``, checked as text before any conversion (a 5,000-digit or
    ``1e20`` budget is refused, not converted); :class:`PolicySpecError` naming ``what`` and the range otherwise."""
    if text.isascii() and text.isdigit() and len(text) <= len(str(most)) and 1 <= int(text) <= most:
        return int(text)
    shown = text if len(text) <= 20 else text[:19] + "…"
    raise PolicySpecError(f"{what} takes a whole number from 1 to {most:,}, not {shown!r}")


def make_baseline(
    game: str, spec: str, options: dict[str, Any] | None = None, seed: int | None = None, engine: Game | None = None
) -> Any:
    """The baseline ``NAME`` or ``NAME:BUDGET`` of ``game`` (``search:400``), on ``engine`` or an engine built with
    ``options``; None when ``NAME`` is not one of :func:`baseline_policies`. :class:`PolicySpecError` for a budget
    given to a baseline that takes none (``greedy:3``) or outside 1 to :data:`MAX_BUDGET`, before anything is
    built."""
    extra = baseline_arguments(game, spec)
    if extra is None:
        return None
    if engine is None:
        import envs

        engine = envs.make_game(game, **(options or {}))
    return baseline_policies(game)[spec.partition(":")[0]](engine, seed=seed, **extra)


def baseline_arguments(game: str, spec: str) -> dict[str, Any] | None:
    """The keyword arguments that the baseline spec ``NAME`` or ``NAME:BUDGET`` gives ``game``'s baseline
    ``NAME`` (``{}`` or ``{"budget": N}``), checked without building anything; None when ``NAME`` is not one of
    :func:`baseline_policies`. :class:`PolicySpecError` for a budget given to a baseline that takes none, or
    outside 1 to :data:`MAX_BUDGET`."""
    name, colon, budget = spec.partition(":")
    table = baseline_policies(game)
    if name not in table:
        return None
    if not colon:
        return {}
    if "budget" not in inspect.signature(table[name]).parameters:
        takes = [n for n, make in table.items() if "budget" in inspect.signature(make).parameters]
        only = f" (only {' and '.join(takes)} take{'s' if len(takes) == 1 else ''} one: NAME:N)" if takes else ""
        raise PolicySpecError(f"{spec[:40]!r}: {name} takes no budget{only}")
    return {"budget": parse_count(budget, f"{name}:N", MAX_BUDGET)}
