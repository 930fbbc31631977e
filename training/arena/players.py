"""Policies by name: the specs every command that seats a policy accepts (``--policies``, ``--opponent``, the web
page, and, through the ``barnyard.policy_specs`` entry point, ``envs``' own policy specs).

:func:`make_policy` turns a spec into an ``envs.common.policies.Policy``: a scripted baseline, a checkpoint's
network (:mod:`training.checkpoint`), or a search over a checkpoint (:mod:`training.alphazero.search`,
:mod:`training.alphazero.guided`; imported only when such a spec is asked for).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envs.common.policies import FirstLegalPolicy, Policy, RandomPolicy, baseline_policies, make_baseline


class UnknownPolicyError(ValueError):
    """A policy spec that is neither a baseline name nor a checkpoint file."""


def baseline_names(game: str) -> list[str]:
    """The scripted baselines a game offers (``random`` always, then its ``baselines.POLICIES``)."""
    return ["random", *baseline_policies(game)]


def parse_sample_spec(arg: str) -> tuple[str, str]:
    """A ``sample:`` spec's argument as ``(checkpoint, temperature text)``, the text empty where none is given
    (``PATH`` or ``PATH:T``; a last part ending in ``.pt`` / ``.json`` is the path's)."""
    head, _, tail = arg.rpartition(":")
    if head and not tail.endswith((".pt", ".json")):
        return head, tail
    return arg, ""


def make_policy(spec: str, game: str, options: dict[str, Any] | None = None, seed: int | None = None) -> Policy:
    """A policy from a spec: ``random``, ``first`` (always the lowest legal action: exploitable by construction),
    a baseline name (``greedy``, ``search``, ``search:400`` for a budget), the path of a trained checkpoint (its
    network alone: the argmax of its policy), ``sample:PATH`` / ``sample:PATH:T`` (its network sampled, at
    temperature T, default 1, from the seat's seeded generator), ``sym:PATH`` (that checkpoint averaged over the game's
    symmetries),
    ``mcts:PATH`` / ``mcts:PATH:N`` (the network-guided search over that checkpoint, N simulations a decision;
    default: its training run's), or ``guided:PATH[:K[:N]]`` (the game's
    compiled ``search`` over the checkpoint's K most likely moves at the root, N simulations:
    :mod:`training.alphazero.guided`), or ``agent:PATH`` (the checkpoint played as its sidecar declares:
    :func:`training.checkpoint.declared_spec`; the network alone where it declares nothing). Raises
    :class:`UnknownPolicyError` with the choices otherwise."""
    options = options or {}
    name, _, arg = spec.partition(":")
    if name == "agent":
        if not Path(arg).exists():
            raise UnknownPolicyError(f"checkpoint {arg!r} does not exist (spec agent:PATH)")
        from training.checkpoint import CheckpointError, declared_spec

        try:
            declared = declared_spec(arg)
        except CheckpointError as err:
            raise UnknownPolicyError(str(err)) from None
        return make_policy(declared, game, options, seed)
    if name == "random":
        return RandomPolicy(seed)
    if spec == "first":
        return FirstLegalPolicy(seed)
    if name == "mcts":
        checkpoint, _, count = arg.rpartition(":")
        if not count.isdigit():
            checkpoint, count = arg, ""
        if not Path(checkpoint).exists():
            raise UnknownPolicyError(f"checkpoint {checkpoint!r} does not exist (spec mcts:PATH or mcts:PATH:N)")
        from training.alphazero.search import load_search_policy

        return load_search_policy(
            checkpoint, game=game, options=options, seed=seed, simulations=int(count) if count else None
        )
    if name == "guided":
        from training.alphazero.guided import load_guided_policy, parse_guided_spec

        if not Path(parse_guided_spec(arg)[0]).exists():
            raise UnknownPolicyError(
                f"checkpoint {arg!r} does not exist (spec guided:PATH, guided:PATH:K or guided:PATH:K:N)"
            )
        return load_guided_policy(arg, game, options, seed)
    if name == "sample":
        checkpoint, tail = parse_sample_spec(arg)
        temperature = 1.0
        if tail:
            try:
                temperature = float(tail)
            except ValueError:
                raise UnknownPolicyError(f"sample:{arg}: the temperature {tail!r} is not a number") from None
        if not (temperature > 0.0 and temperature < float("inf")):
            raise UnknownPolicyError(f"sample:{arg}: the temperature must be above 0 and finite")
        if not Path(checkpoint).exists():
            raise UnknownPolicyError(f"checkpoint {checkpoint!r} does not exist (spec sample:PATH or sample:PATH:T)")
        from training.checkpoint import load_policy

        return load_policy(checkpoint, game=game, options=options, seed=seed, greedy=False, temperature=temperature)
    symmetric = name == "sym"
    if not symmetric:
        baseline = make_baseline(game, spec, options, seed)
        if baseline is not None:
            return baseline
    checkpoint = arg if symmetric else spec
    path = Path(checkpoint)
    if symmetric or path.suffix in (".pt", ".json") or path.exists():
        if not path.exists():
            raise UnknownPolicyError(f"checkpoint {checkpoint!r} does not exist")
        from training.checkpoint import load_policy

        return load_policy(path, game=game, options=options, seed=seed, symmetric=symmetric)
    raise UnknownPolicyError(
        f"unknown policy {spec!r} for {game}; choose from {', '.join(baseline_names(game))}, first or a checkpoint path"
    )
