"""Network-pruned search: the game's compiled ``search`` baseline with its root restricted to a network's most
likely moves (harness spec ``guided:PATH``, ``guided:PATH:K`` or ``guided:PATH:K:N``).

The search baselines spread their simulations over every candidate at the root. A trained policy ranks the
legal moves in one forward pass; keeping its ``K`` most likely and handing the simulations to them is the policy
network's role in AlphaGo's search (the network narrows the tree, playouts value its leaves). The value head is
not used: one forward pass a decision keeps the policy near the search baseline's time per move, which a
network evaluation at every leaf (``mcts:PATH:N``) does not on a CPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from envs.common.policies import Decision, make_baseline
from training import specs
from training.distribution import action_positions


class GuidedSearchError(ValueError):
    """A ``guided:`` spec that cannot be built (a game without a compiled search to restrict, bad K or N)."""


@torch.inference_mode()
def ranked_moves(net: torch.nn.Module, decision: Decision) -> np.ndarray:
    """The decision's legal actions by ``net``'s logits (a :mod:`training.networks` network), most likely first,
    ties to the lower id; only the legal actions' logits are gathered."""
    legal = decision.legal_actions()
    obs = torch.as_tensor(np.asarray(decision.observation, dtype=np.float32))[None]
    scores, _, columns = net.scores(obs)
    index = torch.as_tensor(legal)
    logits = scores[0, action_positions(columns, index[None])[0]].double().numpy()
    return legal[np.lexsort((legal, -logits))].astype(np.int64)


def check_counts(top_k: int, budget: int) -> None:
    """:class:`GuidedSearchError` unless K is from 1 to ``MAX_TOP_K`` and N from 1 to ``MAX_SIMULATIONS``
    (:mod:`training.specs`), whether they come from a spec, a sidecar or the game's defaults."""
    if not (1 <= top_k <= specs.MAX_TOP_K and 1 <= budget <= specs.MAX_SIMULATIONS):
        raise GuidedSearchError(
            f"guided search needs K from 1 to {specs.MAX_TOP_K:,} and N from 1 to {specs.MAX_SIMULATIONS:,} "
            f"(got K={top_k}, N={budget})"
        )


class GuidedSearchPolicy:
    """``search`` with the root's children restricted to the ``top_k`` legal moves that ``net_policy``'s network
    finds most likely (ties: the lower action id), ``budget`` simulations a decision."""

    def __init__(self, net_policy: Any, search: Any, top_k: int, budget: int, name: str = "guided"):
        check_counts(top_k, budget)
        if not hasattr(search, "act_among"):
            raise GuidedSearchError(f"{net_policy.game.name}'s search baseline cannot restrict its root")
        self.net_policy = net_policy
        self.search = search
        self.top_k = top_k
        self.budget = budget
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        self.net_policy.reset(seed)
        self.search.reset(seed)

    def root_moves(self, decision: Decision) -> np.ndarray:
        """The ``top_k`` legal actions by the network's logits, most likely first (:func:`ranked_moves`)."""
        if decision.game.name != self.net_policy.game.name:
            raise ValueError(f"policy {self.name} plays {self.net_policy.game.name}, not {decision.game.name}")
        return ranked_moves(self.net_policy.net, decision)[: self.top_k]

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions()
        if legal.size == 1:
            return int(legal[0])
        return int(self.search.act_among(decision, self.root_moves(decision), budget=self.budget))


def parse_guided_spec(arg: str) -> tuple[str, int | None, int | None]:
    """``PATH``, ``PATH:K`` or ``PATH:K:N`` -> (PATH, K or None, N or None), K and N within their caps
    (:func:`training.specs.parse_guided_spec`)."""
    return specs.parse_guided_spec(arg)


def load_guided_policy(
    arg: str,
    game: str,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    folders: Sequence[Path] | None = None,
) -> GuidedSearchPolicy:
    """The policy of spec ``guided:ARG`` (:func:`parse_guided_spec`; K and N default to the game's descriptor,
    ``GameInfo.guided_defaults``). Raises :class:`GuidedSearchError` for a spec without K and N in a game without
    defaults, K or N past their caps, or a game without a restrictable compiled search (K and N are checked before
    anything is loaded); ``CheckpointError`` for a checkpoint of another game or options. ``folders``: as
    :func:`training.arena.players.make_policy`'s."""
    import envs
    from training.checkpoint import load_policy

    try:
        path, top_k, budget = parse_guided_spec(arg)
    except specs.PolicySpecError as err:
        raise GuidedSearchError(str(err)) from None
    defaults = envs.game_info(game).guided_defaults
    if defaults is None and (top_k is None or budget is None):
        raise GuidedSearchError(f"{game} has no guided: defaults; give both: guided:PATH:K:N")
    default_k, default_n = defaults or (0, 0)
    k = default_k if top_k is None else top_k
    n = default_n if budget is None else budget
    check_counts(k, n)
    net_policy = load_policy(path, game=game, options=options, seed=seed, folders=folders)
    search = make_baseline(game, "search", options, seed, engine=net_policy.game)
    # One position per forward pass: one torch thread is fastest (as training.alphazero.search.load_search_policy).
    torch.set_num_threads(1)
    return GuidedSearchPolicy(net_policy, search, k, n, name=f"guided{k}x{n}:{Path(path).with_suffix('').name}")
