"""How well can a network learn Bestiarium's value from an encoding? A supervised fit on search games.

Positions come from games of the ``search`` baseline against itself (the compiled MCTS, 60 simulations a move),
the first ``--random-plies`` plies of each game played uniformly at random so that games differ. Every position
is labelled from the mover's view with

* ``result``: the game's final result (+1 won, -1 lost; games cut by the ply cap are dropped), and
* ``score-now``: the verdict of the scoring cascade if the game ended now (+1 / -1, 0 when every size ties), a
  deterministic function of the position.

The games are split by game: the last ``--holdout`` of them are the test games, the ``--holdout / 2`` before them
the validation games, the rest the training games. Each encoding is fitted with the training package's own
ConvNet (``training.networks.ConvNet``, value head only, Adam, MSE) to each target for up to ``--epochs`` epochs;
the epoch with the lowest validation MSE is kept (positions of one game are correlated, so later epochs overfit),
and the table gives that epoch's test MSE, with the training MSE beside it (predicting 0 everywhere scores the
mean of the squared targets, printed as the ``zero`` row). Encodings:

* ``v0``: planes 0-9 of the observation (``bestiarium_v0``'s ten stone planes);
* ``v1-planes``: all 56 planes of ``bestiarium_v1`` through the convolutions only;
* ``v1``: all 56 planes, the 38 constant cascade planes also read as a vector by the value head (the network
  ``python -m training train`` builds for Bestiarium).

``python -m lab.value_fit [--games 300] [--epochs 8] [--seed 0] [--out runs/value_fit.json]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from envs.bestiarium import observation
from envs.bestiarium.observation import NUM_STONE_PLANES
from envs.bestiarium.rules import BestiariumGame
from envs.common.policies import decision_from_state, make_baseline
from training.networks import ConvNet, action_layout

ENCODINGS: dict[str, tuple[int, int]] = {
    "v0": (NUM_STONE_PLANES, 0),
    "v1-planes": (NUM_STONE_PLANES + observation.NUM_SCORE_PLANES, 0),
    "v1": (NUM_STONE_PLANES + observation.NUM_SCORE_PLANES, observation.NUM_GLOBAL_PLANES),
}
"""Encoding name -> (observation planes used, trailing constant planes read as a vector)."""
TARGETS = ("result", "score-now")


def search_positions(
    games: int, seed: int, random_plies: int = 6, budget: int = 60, options: dict[str, Any] | None = None
) -> dict[str, np.ndarray]:
    """Positions of ``games`` search-vs-search games: ``obs`` (P, 56, S, S) from the mover's view, ``game``
    (P,) the game index, ``result`` and ``score_now`` (P,) from the mover's view."""
    game = BestiariumGame(**(options or {}))
    rng = np.random.default_rng(seed)
    players = [make_baseline("bestiarium", f"search:{budget}", game.options(), seed=seed * 2 + k) for k in (1, 2)]
    obs, index, mover, verdict, results = [], [], [], [], []
    for g in range(games):
        state = game.initial_state()
        first = len(obs)
        while game.current_player(state) >= 0 and not game.is_truncated(state):
            seat = game.current_player(state)
            o = game.observation(state, seat)
            obs.append(o)
            index.append(g)
            mover.append(seat)
            verdict.append(float(o[observation.VERDICT, 0, 0]))
            if state.plies < random_plies:
                action = int(rng.choice(game.legal_actions(state)))
            else:
                action = players[seat].act(decision_from_state(game, state, seat))
            game.apply(state, action)
        if game.is_truncated(state):
            del obs[first:], index[first:], mover[first:], verdict[first:]
            continue
        returns = game.returns(state)
        results.extend(float(returns[s]) for s in mover[first:])
    return {
        "obs": np.stack(obs).astype(np.float32),
        "game": np.array(index),
        "result": np.array(results, dtype=np.float32),
        "score_now": np.array(verdict, dtype=np.float32),
    }


def fit(
    data: dict[str, np.ndarray],
    encoding: str,
    target: str,
    epochs: int,
    holdout: float,
    seed: int,
    channels: int = 32,
    layers: int = 3,
    batch: int = 256,
    learning_rate: float = 1e-3,
) -> dict[str, float]:
    """Held-out and training MSE of ``encoding``'s ConvNet value fitted to ``target`` (split by game)."""
    planes, global_planes = ENCODINGS[encoding]
    y_all = data["result" if target == "result" else "score_now"]
    games = int(data["game"].max()) + 1
    cut = int(round(games * (1.0 - holdout)))
    val_cut = int(round(games * (1.0 - 1.5 * holdout)))
    train, val, test = data["game"] < val_cut, (data["game"] >= val_cut) & (data["game"] < cut), data["game"] >= cut
    x = torch.from_numpy(data["obs"][:, :planes])
    y = torch.from_numpy(y_all)
    torch.manual_seed(seed)
    game = BestiariumGame()
    net = ConvNet(
        tuple(x.shape[1:]),
        game.num_actions,
        channels=channels,
        layers=layers,
        layout=action_layout(game),
        global_planes=global_planes,
    )
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
    train_idx = np.flatnonzero(train)
    gen = np.random.default_rng(seed)

    def mse(idx: np.ndarray) -> float:
        with torch.no_grad():
            out = torch.cat([net.scores(x[idx[i : i + 1024]])[1] for i in range(0, idx.size, 1024)])
        return float(((out - y[idx]) ** 2).mean())

    val_idx, test_idx = np.flatnonzero(val), np.flatnonzero(test)
    best: dict[str, float] = {"val_mse": float("inf")}
    for epoch in range(1, epochs + 1):
        order = gen.permutation(train_idx)
        for i in range(0, order.size, batch):
            rows = order[i : i + batch]
            loss = ((net.scores(x[rows])[1] - y[rows]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        val_mse = mse(val_idx)
        if val_mse < best["val_mse"]:
            best = {"val_mse": val_mse, "epoch": epoch, "test_mse": mse(test_idx), "train_mse": mse(train_idx)}
    return {**best, "zero_mse": float((y[test_idx] ** 2).mean())}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Generate the positions, fit every encoding to both targets, print the table (and write ``--out``)."""
    p = argparse.ArgumentParser(prog="python -m lab.value_fit", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=300, help="search-vs-search games (default 300)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument(
        "--holdout",
        type=float,
        default=0.2,
        help="share of the games for the test (default 0.2; half as many validate)",
    )
    p.add_argument("--random-plies", type=int, default=6, help="opening plies played at random (default 6)")
    p.add_argument("--budget", type=int, default=60, help="search simulations a move (default 60)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--encodings", nargs="+", default=list(ENCODINGS), choices=list(ENCODINGS))
    p.add_argument("--torch-threads", type=int, default=2)
    p.add_argument("--out", type=Path, default=None, help="also write the table as JSON here")
    args = p.parse_args(argv)
    if args.games < 6 or not 0.0 < args.holdout < 0.5 or args.epochs < 1:
        p.error("need --games >= 6, 0 < --holdout < 0.5 and --epochs >= 1")
    torch.set_num_threads(args.torch_threads)
    t0 = time.perf_counter()
    data = search_positions(args.games, args.seed, args.random_plies, args.budget)
    gen_s = time.perf_counter() - t0
    print(f"{data['obs'].shape[0]} positions from {len(set(data['game'].tolist()))} games in {gen_s:.0f} s")
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for enc in args.encodings:
        rows[enc] = {}
        for target in TARGETS:
            t1 = time.perf_counter()
            rows[enc][target] = fit(data, enc, target, args.epochs, args.holdout, args.seed)
            rows[enc][target]["fit_s"] = time.perf_counter() - t1
    zero = {t: rows[args.encodings[0]][t]["zero_mse"] for t in TARGETS}
    agree = float(np.mean(np.sign(data["score_now"]) == data["result"]))
    print(
        f"\ntest MSE (train MSE) at the epoch of least validation MSE (of {args.epochs}); score-now's sign equals "
        f"the result in {agree:.3f} of positions"
    )
    print(f"{'encoding':<12} {'result':>18} {'score-now':>18}")
    print(f"{'zero':<12} {zero['result']:>18.3f} {zero['score-now']:>18.3f}")
    for enc, r in rows.items():
        cells = [f"{r[t]['test_mse']:.3f} ({r[t]['train_mse']:.3f})" for t in TARGETS]
        print(f"{enc:<12} {cells[0]:>18} {cells[1]:>18}")
    report = {
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "positions": int(data["obs"].shape[0]),
        "generate_s": gen_s,
        "score_now_agrees": agree,
        "fits": rows,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
