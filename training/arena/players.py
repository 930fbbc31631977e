"""Policies by name: the specs every command that seats a policy accepts (``--policies``, ``--opponent``, the web
page, and, through the ``barnyard.policy_specs`` entry point, ``envs``' own policy specs).

:func:`make_policy` turns a spec into an ``envs.common.policies.Policy``: a scripted baseline, a checkpoint's
network (:mod:`training.checkpoint`), a search over a checkpoint (:mod:`training.alphazero.search`,
:mod:`training.alphazero.guided`; imported only when such a spec is asked for), or a language model
(``llm:``, :mod:`training.arena.llm`).

What a harness that seats them honours besides ``act`` (a policy may give up the game, and keep a transcript of each
decision): :mod:`training.arena.harness`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from envs.common.policies import (
    FirstLegalPolicy,
    Policy,
    PolicySpecError,
    RandomPolicy,
    baseline_policies,
    make_baseline,
)
from training.loader import CheckpointError, check_files, declared_spec, read_sidecar
from training.specs import (
    declared_simulations,
    parse_guided_spec,
    parse_llm_spec,
    parse_mcts_spec,
    parse_sample_spec,
    parse_temperature,
)

__all__ = ["PolicySpecError", "UnknownPolicyError", "baseline_names", "make_policy", "parse_sample_spec"]


class UnknownPolicyError(PolicySpecError):
    """A policy spec that :func:`make_policy` cannot make: neither a baseline name nor a checkpoint file, or an
    argument its kind does not take or past its cap."""


def baseline_names(game: str) -> list[str]:
    """The scripted baselines a game offers (``random`` always, then its ``baselines.POLICIES``)."""
    return ["random", *baseline_policies(game)]


def make_policy(
    spec: str,
    game: str,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    folders: Sequence[Path] | None = None,
) -> Policy:
    """A policy from a spec: ``random``, ``first`` (always the lowest legal action: exploitable by construction),
    a baseline name (``greedy``, ``search``, ``search:400`` for a budget), the path of a trained checkpoint (its
    network alone: the argmax of its policy), ``sample:PATH`` / ``sample:PATH:T`` (its network sampled, at
    temperature T, default 1, from the seat's seeded generator), ``sym:PATH`` (that checkpoint averaged over the game's
    symmetries),
    ``mcts:PATH`` / ``mcts:PATH:N`` (the network-guided search over that checkpoint, N simulations a decision;
    default: its training run's), or ``guided:PATH[:K[:N]]`` (the game's
    compiled ``search`` over the checkpoint's K most likely moves at the root, N simulations:
    :mod:`training.alphazero.guided`), or ``agent:PATH`` (the checkpoint played as its sidecar declares:
    :func:`training.checkpoint.declared_spec`; the network alone where it declares nothing), or
    ``llm:MODEL[@URL][,OPTION=VALUE...]`` (a chat model behind an OpenAI-compatible API: :mod:`training.arena.llm`,
    options :func:`training.specs.parse_llm_spec`). Raises
    :class:`UnknownPolicyError` with the choices otherwise, and for an argument a spec does not take or a count past
    its cap (:mod:`training.specs`: ``search:0``, ``random:7``, ``guided:PATH:24:999999999``), before anything
    is loaded or allocated.

    ``folders``: where checkpoints may be read from (the web app's served folders: both files of a checkpoint, as
    named and once every link is followed, :func:`training.loader.inside`); None: anywhere. Either way the files
    are read by :func:`training.loader.read_bounded` (regular files, size caps)."""
    try:
        return _make_policy(spec, game, options or {}, seed, folders)
    except PolicySpecError as err:
        if isinstance(err, UnknownPolicyError):
            raise
        raise UnknownPolicyError(str(err)) from None


def _make_policy(
    spec: str, game: str, options: dict[str, Any], seed: int | None, folders: Sequence[Path] | None
) -> Policy:
    name, colon, arg = spec.partition(":")
    if name in ("random", "first") and colon:
        raise PolicySpecError(f"{spec[:40]!r}: {name} takes no argument")

    def checkpoint(path: str, forms: str) -> None:
        """The checkpoint exists and both its files pass the loader's checks (torch not imported yet)."""
        if not Path(path).exists():
            raise UnknownPolicyError(f"checkpoint {path!r} does not exist ({forms})")
        check_files(path, folders)

    if name == "agent":
        checkpoint(arg, "spec agent:PATH")
        try:
            declared = declared_spec(arg, folders)
        except CheckpointError as err:
            raise UnknownPolicyError(str(err)) from None
        return make_policy(declared, game, options, seed, folders)
    if name == "llm":
        settings = parse_llm_spec(arg)
        from training.arena.llm import LLMPolicy

        try:
            return LLMPolicy(spec, settings, seed)
        except ValueError as err:
            raise UnknownPolicyError(str(err)) from None
    if spec == "random":
        return RandomPolicy(seed)
    if spec == "first":
        return FirstLegalPolicy(seed)
    if name == "mcts":
        path, count = parse_mcts_spec(arg)
        checkpoint(path, "spec mcts:PATH or mcts:PATH:N")
        try:  # the budget, given or its sidecar's, within its cap before the weights are read
            count = declared_simulations(read_sidecar(path, folders), count)
        except PolicySpecError as err:
            raise CheckpointError(f"mcts:{path}: {err}") from None
        from training.alphazero.search import load_search_policy

        return load_search_policy(path, game=game, options=options, seed=seed, simulations=count, folders=folders)
    if name == "guided":
        checkpoint(parse_guided_spec(arg)[0], "spec guided:PATH, guided:PATH:K or guided:PATH:K:N")
        from training.alphazero.guided import load_guided_policy

        return load_guided_policy(arg, game, options, seed, folders=folders)
    if name == "sample":
        path, tail = parse_sample_spec(arg)
        temperature = parse_temperature(tail, f"sample:{arg[:40]}") if tail else 1.0
        checkpoint(path, "spec sample:PATH or sample:PATH:T")
        from training.checkpoint import load_policy

        return load_policy(
            path, game=game, options=options, seed=seed, greedy=False, temperature=temperature, folders=folders
        )
    symmetric = name == "sym"
    if not symmetric:
        baseline = make_baseline(game, spec, options, seed)
        if baseline is not None:
            return baseline
    path = arg if symmetric else spec
    if symmetric or Path(path).suffix in (".pt", ".json") or Path(path).exists():
        checkpoint(path, "spec PATH or sym:PATH")
        from training.checkpoint import load_policy

        return load_policy(path, game=game, options=options, seed=seed, symmetric=symmetric, folders=folders)
    raise UnknownPolicyError(
        f"unknown policy {spec!r} for {game}; choose from {', '.join(baseline_names(game))}, first, a checkpoint path "
        "or llm:MODEL@URL"
    )
