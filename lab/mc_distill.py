"""Bestiarium's policy network fitted to flat Monte Carlo action values (a dense, supervised target).

Why: PPO and imitation of the ``search`` baseline's moves both stall near greedy's strength, and the final result
of a search game is hardly predictable from the position (``python -m lab.value_fit``), so a learner has
little to climb. The search's strength comes from its random playouts: a move is good when 20 random plies after
it end in a good cascade. This script measures that value for *every* legal action of a position and fits the
network's logits to it, which is one regression target per legal action (about 50 numbers a position) instead of
one game result (one bit for ~90 positions) or one chosen move.

1. **Positions.** Games between a *teacher* (the arg-max of the action values, ties at random) and an opponent
   drawn per game (``random`` 0.3, ``greedy`` 0.3, the teacher 0.4), the teacher's seat alternating, the first
   ``--random-plies`` plies uniformly random. Every teacher position is labelled (its values choose its move) and
   each other position with probability ``--label-fraction``; positions with one legal action are skipped.
   ``--workers`` processes play ``--games`` games in all (``--minutes``, when set, stops them earlier). The
   teacher's results against each opponent are printed: they measure the target's strength.
2. **Labels.** :meth:`envs.bestiarium.search.CompiledSearch.action_values`: for each legal action, the mean over
   ``--rollouts`` playouts of the mover's leaf value after it (the ``search`` baseline's leaf: up to 20 uniform
   random plies, then ``tanh(d / (2 s^2))`` of the cascade).
3. **Fit.** The project's network for Bestiarium (:func:`training.networks.network_spec` of the game's PPO
   config: the architecture ``python -m training train`` builds, so the result can be evaluated, searched with
   and fine-tuned like any checkpoint). Loss over each position's legal actions: the squared error between the
   centred logits and the centred values divided by ``--temperature`` (so ``softmax(logits)`` ~
   ``softmax(values / temperature)``), plus the value head's squared error to the best action's value. Every
   minibatch position is turned by a random board symmetry. The last 10% of games are held out: the script
   reports their centred-value MSE, how often the network's first choice is the values' best action, and the
   mean regret ``max value - value of the network's choice``; the epoch with the lowest held-out regret is kept.
4. **Output.** ``OUT/policy.pt`` + sidecar (``"algo": "mc_distill"``), ``OUT/positions.npz`` (the labelled data,
   reused with ``--data``), ``OUT/report.json``.

``python -m lab.mc_distill --games 400 --workers 2 --rollouts 12 --epochs 30 --seed 1 --out runs/mcd``
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from envs.bestiarium.rules import BestiariumGame
from envs.bestiarium.search import CompiledSearch
from envs.common.policies import decision_from_state, make_baseline

OPPONENTS = (("random", 0.3), ("greedy", 0.3), ("teacher", 0.4))
"""The teacher's opponent per game, with its probability."""


def teacher_move(values: np.ndarray, rng: np.random.Generator) -> int:
    """The arg-max of ``values`` (NaN: illegal), ties at random."""
    best = np.flatnonzero(values == np.nanmax(values))
    return int(best[rng.integers(best.size)])


def generate(
    seed: int,
    games: int,
    rollouts: int,
    label_fraction: float,
    random_plies: int,
    game_offset: int = 0,
    minutes: float = 0.0,
) -> dict[str, Any]:
    """Labelled positions of ``games`` games (see the module docstring), fewer if ``minutes`` (> 0) pass first:
    ``obs`` float16 (P, C, H, W), ``values`` float32 (P, A) (NaN where illegal), ``game`` (P,), and the
    teacher's results. The same arguments give the same positions unless the time cap cuts them."""
    torch.set_num_threads(1)
    game = BestiariumGame()
    rng = np.random.default_rng([seed, 1])
    teacher = CompiledSearch(game, 1, 1.4, depth=20, scale=2.0)
    greedy = make_baseline("bestiarium", "greedy", seed=seed * 7 + 3, engine=game)
    obs, values, index = [], [], []
    results: dict[str, list[int]] = {name: [] for name, _ in OPPONENTS}
    deadline = time.time() + 60.0 * minutes if minutes > 0 else float("inf")
    g = 0
    while g < games and time.time() < deadline:
        names = [name for name, _ in OPPONENTS]
        opponent = names[rng.choice(len(names), p=[p for _, p in OPPONENTS])]
        teacher_seat = g % 2
        state = game.initial_state()
        while game.current_player(state) >= 0 and not game.is_truncated(state):
            seat = game.current_player(state)
            legal = np.asarray(game.legal_actions(state))
            teacher_moves = seat == teacher_seat or opponent == "teacher"
            if legal.size == 1:
                action = int(legal[0])
            elif state.plies < random_plies:
                action = int(rng.choice(legal))
            else:
                q = None
                if teacher_moves or rng.random() < label_fraction:
                    q = teacher.action_values(state, rng, rollouts)
                    obs.append(game.observation(state, seat).astype(np.float16))
                    values.append(q.astype(np.float32))
                    index.append(game_offset + g)
                if teacher_moves:
                    action = teacher_move(q, rng)
                elif opponent == "random":
                    action = int(rng.choice(legal))
                else:
                    action = int(greedy.act(decision_from_state(game, state, seat)))
            game.apply(state, action)
        if not game.is_truncated(state):
            results[opponent].append(int(game.returns(state)[teacher_seat] > 0))
        g += 1
    return {"obs": np.stack(obs), "values": np.stack(values), "game": np.array(index), "results": results, "games": g}


def _generate_worker(args: tuple) -> dict[str, Any]:
    return generate(*args)


def collect(
    workers: int, seed: int, games: int, rollouts: int, label_fraction: float, random_plies: int, minutes: float = 0.0
) -> dict[str, Any]:
    """:func:`generate` in ``workers`` processes (seeds ``seed * 100 + w``, ``ceil(games / workers)`` games
    each), merged; games numbered apart."""
    per_worker = -(-games // workers)
    jobs = [
        (seed * 100 + w, per_worker, rollouts, label_fraction, random_plies, w * 1_000_000, minutes)
        for w in range(workers)
    ]
    if workers == 1:
        parts = [_generate_worker(jobs[0])]
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(_generate_worker, jobs)
    results = {name: sum((p["results"][name] for p in parts), []) for name, _ in OPPONENTS}
    return {
        "obs": np.concatenate([p["obs"] for p in parts]),
        "values": np.concatenate([p["values"] for p in parts]),
        "game": np.concatenate([p["game"] for p in parts]),
        "results": results,
        "games": sum(p["games"] for p in parts),
    }


def fit(
    data: dict[str, np.ndarray],
    epochs: int,
    seed: int,
    temperature: float,
    learning_rate: float,
    batch: int,
    channels: int | None,
    layers: int | None,
    init_from: str | None = None,
    torch_threads: int = 2,
) -> tuple[torch.nn.Module, dict[str, Any], list[dict[str, float]]]:
    """The network fitted to ``data`` (see the module docstring); returns (net, spec, per-epoch log)."""
    import envs
    from training.checkpoint import init_weights_from
    from training.config import make_config
    from training.networks import build_network, network_spec

    torch.set_num_threads(torch_threads)
    torch.manual_seed(seed)
    game = envs.make_game("bestiarium")
    overrides = {k: v for k, v in (("conv_channels", channels), ("conv_layers", layers)) if v is not None}
    spec = network_spec(make_config("bestiarium", **overrides), game)
    net = build_network(spec, game)
    if init_from:
        init_weights_from(net, spec, init_from, "bestiarium", game.options())
    symmetries = game.symmetries(game.initial_state())
    # the turned observations and values, per symmetry: a gather over the flat observation and the action ids
    sources = torch.as_tensor(np.stack([s.observation_source for s in symmetries]))
    turns = torch.as_tensor(np.stack([np.argsort(s.actions) for s in symmetries]))  # turned[a] = values[turns[a]]
    obs = torch.from_numpy(data["obs"])
    values = torch.from_numpy(data["values"])
    legal = ~torch.isnan(values)
    values = torch.nan_to_num(values)
    games = data["game"]
    order_games = np.unique(games)
    held = np.isin(games, order_games[int(round(order_games.size * 0.9)) :])
    train_idx, test_idx = np.flatnonzero(~held), np.flatnonzero(held)
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
    gen = np.random.default_rng(seed)
    shape = obs.shape[1:]

    def losses(rows: np.ndarray, turn: np.ndarray | None) -> tuple[torch.Tensor, torch.Tensor, dict[str, Any]]:
        x, q, m = obs[rows].float(), values[rows], legal[rows]
        if turn is not None:
            t = torch.as_tensor(turn)
            x = torch.gather(x.reshape(len(rows), -1), 1, sources[t]).reshape(len(rows), *shape)
            q = torch.gather(q, 1, turns[t])
            m = torch.gather(m, 1, turns[t])
        logits, v = net(x)
        n = m.sum(1, keepdim=True)
        centred_q = (q - (q * m).sum(1, keepdim=True) / n) * m
        centred_l = (logits - (logits * m).sum(1, keepdim=True) / n) * m
        policy_loss = (((centred_l - centred_q / temperature) ** 2).sum(1) / n.squeeze(1)).mean()
        best = torch.where(m, q, torch.full_like(q, -9.0)).max(1).values
        value_loss = ((v - best) ** 2).mean()
        choice = torch.where(m, logits, torch.full_like(logits, -1e9)).argmax(1)
        chosen = q.gather(1, choice[:, None]).squeeze(1)
        top = torch.where(m, q, torch.full_like(q, -9.0)).argmax(1)
        stats = {
            "regret": (best - chosen),
            "agree": (choice == top).float(),
            "q_mse": ((centred_l * temperature - centred_q) ** 2).sum(1) / n.squeeze(1),
        }
        return policy_loss, value_loss, stats

    def held_out() -> dict[str, float]:
        net.eval()
        sums = {"regret": 0.0, "agree": 0.0, "q_mse": 0.0}
        with torch.no_grad():
            for i in range(0, test_idx.size, 1024):
                _, _, stats = losses(test_idx[i : i + 1024], None)
                for k in sums:
                    sums[k] += float(stats[k].sum())
        net.train()
        return {k: v / max(1, test_idx.size) for k, v in sums.items()}

    log = [{"epoch": 0, **held_out()}]
    best_state, best_regret = {k: v.clone() for k, v in net.state_dict().items()}, log[0]["regret"]
    for epoch in range(1, epochs + 1):
        order = gen.permutation(train_idx)
        total = 0.0
        for i in range(0, order.size, batch):
            rows = order[i : i + batch]
            policy_loss, value_loss, _ = losses(rows, gen.integers(len(symmetries), size=rows.size))
            loss = policy_loss + value_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * rows.size
        row = {"epoch": epoch, "train_loss": total / max(1, order.size), **held_out()}
        log.append(row)
        print(json.dumps(row), flush=True)
        if row["regret"] < best_regret:
            best_regret = row["regret"]
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    net.load_state_dict(best_state)
    net.eval()
    return net, spec, log


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m lab.mc_distill", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games to label (split over the workers)")
    parser.add_argument("--minutes", type=float, default=0.0, help="generation time cap (0: none)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rollouts", type=int, default=12, help="playouts per legal action")
    parser.add_argument("--label-fraction", type=float, default=0.5)
    parser.add_argument("--random-plies", type=int, default=4)
    parser.add_argument("--data", default=None, help="reuse a positions.npz instead of generating")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--temperature", type=float, default=0.1)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--channels", type=int, default=None, help="default: the game's PPO config")
    parser.add_argument("--layers", type=int, default=None)
    parser.add_argument("--init-from", default=None, help="start from a checkpoint's weights")
    parser.add_argument("--torch-threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="runs/mc_distill")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    report: dict[str, Any] = {"args": vars(args)}
    if args.data:
        with np.load(args.data) as f:
            data = {k: f[k] for k in ("obs", "values", "game")}
    else:
        data = collect(
            args.workers, args.seed, args.games, args.rollouts, args.label_fraction, args.random_plies, args.minutes
        )
        np.savez(out / "positions.npz", obs=data["obs"], values=data["values"], game=data["game"])
        report["teacher"] = {
            name: {"games": len(r), "win_rate": float(np.mean(r)) if r else None} for name, r in data["results"].items()
        }
        report["games"] = int(data["games"])
        print(json.dumps({"teacher": report["teacher"], "games": data["games"]}), flush=True)
    report["positions"] = int(data["obs"].shape[0])
    report["generate_s"] = time.time() - start
    print(f"{report['positions']} positions in {report['generate_s']:.0f} s", flush=True)
    net, spec, log = fit(
        data,
        args.epochs,
        args.seed,
        args.temperature,
        args.learning_rate,
        args.batch,
        args.channels,
        args.layers,
        args.init_from,
        args.torch_threads,
    )
    report["fit"] = log
    report["total_s"] = time.time() - start
    import envs
    from training.checkpoint import save_checkpoint

    game = envs.make_game("bestiarium")
    best = min(log, key=lambda r: r["regret"])
    save_checkpoint(
        out / "policy",
        net,
        spec,
        game,
        {"algo": "mc_distill", **vars(args)},
        steps=report["positions"],
        updates=int(best["epoch"]),
        evaluation={"held_out": best},
    )
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({"best": best, "total_s": report["total_s"]}), flush=True)
    return report


if __name__ == "__main__":
    main()
