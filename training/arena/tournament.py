"""Tournament harness: play policies against each other fairly and report win rates and ratings.

Format: for every pair of policies (A, B) in the pool, A takes one seat and B every other seat (a plain duel in
two-player games, "one against the field" with more players); A's seat is rotated evenly over all seats, and each
game has its own seed derived from the tournament seed, so results are reproducible whatever the number of
worker processes. With three or more players the pair is also played the other way round (B alone against a
field of A), since "one A among B's" and "one B among A's" are different tests; each orientation gets the full
number of games and its own row. A game counts for A as a win when A finishes alone in first place, a draw when
A shares first place, a loss otherwise; A's *win share* is wins + draws / (number of players sharing first
place), whose parity value is 1/n. Ratings: a Bradley-Terry model fitted to every pairwise comparison of seats
held by different policies (ties count half), reported on the Elo scale with standard errors.

``--versus`` plays only the first policy against each of the others (a checkpoint against the baselines,
without the baselines' games among themselves); its games are exactly those the full tournament plays for
those pairs, so the two give the same pair rows (the ratings, fitted to fewer comparisons, can differ).

CLI: ``python -m training evaluate --game GAME --policies random greedy search [CHECKPOINT ...] [--versus]``.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, overload

import numpy as np

import envs
from envs.common.game import TERMINAL, Game
from envs.common.policies import Policy, decision_from_state
from training.arena.harness import Forfeit, forfeit_returns, take_transcript
from training.arena.players import make_policy
from training.charts import plot_win_matrix
from training.cli_errors import check_output_file, check_output_folder, check_seed, command_errors
from training.stats import wilson_interval


class PolicyError(RuntimeError):
    """A policy misbehaved (an illegal action, a crash): the message names the policy."""


# ----- one game -------------------------------------------------------------------------------------------------------
@dataclass
class GameRecord:
    """One finished game: who sat where, the actions, the result."""

    game: str
    options: dict[str, Any]
    seed: int
    seats: list[str]
    """Policy spec at each seat."""
    actions: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    truncated: bool = False
    think_seconds: dict[str, float] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    forfeit: int | None = None
    """The seat that forfeited (a policy raised :class:`~training.arena.harness.Forfeit`): the game ended there,
    ``returns`` are :func:`~training.arena.harness.forfeit_returns`, ``scores`` the position's; None otherwise."""
    transcripts: list[dict[str, Any]] = field(default_factory=list)
    """One entry per decision of a policy that keeps transcripts (``llm:``): its ``ply``, ``seat``, ``policy``,
    ``prompt``, each ask's reply and outcome, tokens and latency, and the ``fallback`` used
    (:meth:`training.arena.llm.LLMPolicy.take_transcript`)."""


def play_game(
    game: str, options: dict[str, Any], seats: Sequence[str], seed: int, policies: Sequence[Policy] | None = None
) -> GameRecord:
    """Play one game with the given policy specs (or ready policies) at the seats; the engine keeps the rules.

    Raises :class:`PolicyError` naming the policy if one returns an illegal action or crashes. A policy that raises
    :class:`~training.arena.harness.Forfeit` loses the game there (``record.forfeit``); the transcripts policies
    keep (``llm:``) go into ``record.transcripts``.
    """
    engine: Game = envs.make_game(game, **options)
    if policies is None:
        policies = [make_policy(spec, game, options, seed=seed * 101 + i) for i, spec in enumerate(seats)]
    for i, p in enumerate(policies):
        p.reset(seed * 101 + i)
    rng = np.random.default_rng(seed)
    state = engine.initial_state(rng)
    record = GameRecord(game=game, options=dict(options), seed=seed, seats=list(seats))
    think = {s: 0.0 for s in seats}
    count = {s: 0 for s in seats}
    plies = 0
    while engine.current_player(state) != TERMINAL:
        if engine.is_truncated(state) or plies >= engine.max_game_length:
            record.truncated = True
            break
        seat = engine.current_player(state)
        decision = decision_from_state(engine, state, seat)
        start = time.perf_counter()
        forfeited = False
        try:
            action = policies[seat].act(decision)
        except Forfeit:
            forfeited = True
        except Exception as err:  # noqa: BLE001 - reported with the policy's name
            raise PolicyError(f"policy {seats[seat]!r} (seat {seat}) crashed: {err!r}") from err
        finally:
            entry = take_transcript(policies[seat], plies)
            if entry is not None:
                record.transcripts.append(entry)
        think[seats[seat]] += time.perf_counter() - start
        count[seats[seat]] += 1
        if forfeited:
            record.forfeit = seat
            break
        if not (
            isinstance(action, (int, np.integer)) and 0 <= action < engine.num_actions and decision.action_mask[action]
        ):
            raise PolicyError(
                f"policy {seats[seat]!r} (seat {seat}) returned illegal action {action!r} in {game} "
                f"(seed {seed}, ply {plies})"
            )
        engine.apply(state, int(action), rng)
        record.actions.append(int(action))
        plies += 1
    if record.forfeit is not None:
        record.returns = forfeit_returns(engine.num_players, record.forfeit)
    else:
        record.returns = [float(x) for x in engine.returns(state)]
    record.scores = [float(x) for x in engine.scores(state)]
    record.think_seconds = think
    record.decisions = count
    return record


# ----- the schedule ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    index: int
    pair: tuple[int, int]
    """(A, B) indices into the policy list: A takes ``hero_seat``, B every other seat."""
    hero_seat: int
    seed: int


def ordered_pairs(num_policies: int, num_players: int, versus: bool = False) -> list[tuple[int, int]]:
    """(hero, field) pairs: each unordered pair once with two players, both ways round with more.

    ``versus``: only the pairs with policy 0 (a challenger against each of the others). They come first in the
    full order too, so a versus tournament plays exactly the games the full one plays for those pairs.
    """
    pairs = list(combinations(range(num_policies), 2))
    if versus:
        pairs = [p for p in pairs if p[0] == 0]
    if num_players > 2:
        pairs = [p for a, b in pairs for p in ((a, b), (b, a))]
    return pairs


MAX_GAMES = 1_000_000
"""The most games one tournament (or rating, or exploiter's match) plays. Every game's record is kept for the
tables, the ratings and ``--save-games`` (1-7 KB each in memory: a million is several GB, and days of play on a
few cores); a larger count is refused before anything is loaded or played."""


class Schedule(Sequence[Task]):
    """Every (hero, field) pair, ``games_per_pair`` games, the hero's seat rotated evenly over the seats; each
    :class:`Task` computed from its index when asked for, so a large count costs no memory before its games are
    played.

    In two-player games the pair (A, B) with A at seat 1 is the same as (B, A) with B at seat 0, so every
    ordered seating appears equally often."""

    def __init__(self, pairs: Sequence[tuple[int, int]], num_players: int, games_per_pair: int, seed: int) -> None:
        self.pairs = list(pairs)
        self.num_players = num_players
        self.games_per_pair = max(0, games_per_pair)
        self.seed = seed

    def __len__(self) -> int:
        return len(self.pairs) * self.games_per_pair

    @overload
    def __getitem__(self, k: int) -> Task: ...

    @overload
    def __getitem__(self, k: slice) -> list[Task]: ...

    def __getitem__(self, k: int | slice) -> Task | list[Task]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(f"game {k} of a schedule of {len(self)}")
        pair, g = divmod(k, self.games_per_pair)
        return Task(k, self.pairs[pair], g % self.num_players, self.seed * 1_000_003 + k)


def schedule(num_policies: int, num_players: int, games_per_pair: int, seed: int, versus: bool = False) -> Schedule:
    """The tournament's games in order (:class:`Schedule`): every (hero, field) pair of :func:`ordered_pairs`,
    ``games_per_pair`` games each."""
    return Schedule(ordered_pairs(num_policies, num_players, versus), num_players, games_per_pair, seed)


def check_game_count(num_policies: int, num_players: int, games_per_pair: int, versus: bool = False) -> int:
    """The number of games a tournament plays; ValueError when ``games_per_pair`` is below 1 or the total above
    :data:`MAX_GAMES` (checked before anything is loaded or played)."""
    if games_per_pair < 1:
        raise ValueError(f"--games {games_per_pair}: give at least 1 game per pair")
    pairs = len(ordered_pairs(num_policies, num_players, versus))
    total = pairs * games_per_pair
    if total > MAX_GAMES:
        raise ValueError(
            f"--games {games_per_pair} makes {total:,} games ({pairs} pair{'s' if pairs > 1 else ''}); one run plays "
            f"at most {MAX_GAMES:,} "
            "(every game's record is kept)"
        )
    return total


def chunk_size(games: int, workers: int) -> int:
    """Games a worker takes at a time: about 8 chunks a worker, at most 32 games (the progress bar moves, and the
    unplayed games wait in the schedule, not in the pool's queue)."""
    return max(1, min(32, games // (workers * 8)))


def _one_thread_each() -> None:
    """Pool initializer: one intra-op thread for torch (and OpenMP) in each worker, unless the user's environment
    sets ``OMP_NUM_THREADS``. The workers already share the cores; each policy's single-position forward passes
    spread over every core oversubscribed them, and a network's moves took 10x longer in matches against a
    compiled search (0.04-0.06 s against 0.005) than against random or greedy."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if os.environ["OMP_NUM_THREADS"] == "1" and "torch" in sys.modules:  # imported before this ran: tell it too
        sys.modules["torch"].set_num_threads(1)


def worker_pool(workers: int) -> Any:
    """The harness's process pool: spawned, not forked (a parent that has loaded a checkpoint has torch's thread
    pools running, and forked children can deadlock on them: seen as `evaluate` with a checkpoint and 2 workers
    hung at 0%), with :func:`_one_thread_each` in every worker."""
    return mp.get_context("spawn").Pool(workers, initializer=_one_thread_each)


def tournament_jobs(
    game: str, options: dict[str, Any], specs: list[str], tasks: Iterator[Task] | Sequence[Task]
) -> Iterator[tuple[str, dict[str, Any], list[str], Task]]:
    """Each task as the job :func:`run_task` plays, made as it is taken (a pool takes them as its queue has room)."""
    return ((game, options, specs, task) for task in tasks)


def run_task(args: tuple[str, dict[str, Any], list[str], Task]) -> tuple[Task, GameRecord]:
    """Play one job of :func:`tournament_jobs` (the hero's spec in its seat, the other spec in every other seat) and
    return its task with the game's record: what a tournament's pool, or ``barnyard exploit``'s match, runs per
    game."""
    game, options, specs, task = args
    a, b = task.pair
    n = envs.make_game(game, **options).num_players
    seats = [specs[b]] * n
    seats[task.hero_seat] = specs[a]
    return task, play_game(game, options, seats, task.seed)


# ----- statistics ---------------------------------------------------------------------------------------------------
def fit_bradley_terry(
    num_players: int,
    comparisons: Sequence[tuple[int, int, float]],
    prior_games: float = 1.0,
    iterations: int = 200,
    reference: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry strengths from (i, j, score of i in [0, 1]) comparisons; returns (Elo, standard error).

    Fitted by Newton's method on the log-likelihood with a weak prior (``prior_games`` virtual draws against a
    reference of strength 0 for every player), so the fit exists even for unbeaten players. Ratings are
    ``400 log10`` strengths centred at mean 0 (with ``reference``: relative to that player, rated 0); standard
    errors come from the inverse Hessian, of the ratings so defined.
    """
    k = num_players
    theta = np.zeros(k)
    scale = 400.0 / math.log(10.0)
    for _ in range(iterations):
        grad = np.zeros(k)
        hess = np.zeros((k, k))
        for i, j, s in comparisons:
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            grad[i] += s - p
            grad[j] -= s - p
            w = p * (1 - p)
            hess[i, i] -= w
            hess[j, j] -= w
            hess[i, j] += w
            hess[j, i] += w
        p0 = 1.0 / (1.0 + np.exp(-theta))
        grad += prior_games * (0.5 - p0)
        hess -= np.diag(prior_games * p0 * (1 - p0))
        step = np.linalg.lstsq(hess, -grad, rcond=None)[0]  # minimum-norm: the mean is free without a prior
        theta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    cov = np.linalg.pinv(-hess)
    centre = np.full(k, 1.0 / k)
    if reference is not None:
        centre = np.zeros(k)
        centre[reference] = 1.0
    proj = np.eye(k) - centre[None, :]  # ratings relative to the mean (or to the reference)
    cov_c = proj @ cov @ proj.T
    elo = scale * (theta - centre @ theta)
    se = scale * np.sqrt(np.clip(np.diag(cov_c), 0, None))
    return elo, se


@dataclass
class PairResult:
    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    win_share: float
    """(wins + shared first places split evenly) / games, for A."""
    interval: tuple[float, float]
    parity: float
    mean_margin: float
    """Mean of A's return minus the mean return of B's seats."""


@dataclass
class TournamentResult:
    game: str
    options: dict[str, Any]
    policies: list[str]
    games_per_pair: int
    seed: int
    pairs: list[PairResult]
    elo: list[float]
    elo_se: list[float]
    seconds_per_move: dict[str, float]
    records: list[GameRecord] = field(default_factory=list, repr=False)
    llm: dict[str, dict[str, int]] = field(default_factory=dict)
    """The illegal-move counts of each policy that keeps transcripts (``llm:``): :func:`llm_counts`."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("records")
        return data

    @classmethod
    def from_json(cls, data: Any) -> TournamentResult:
        """Inverse of :meth:`to_json` (a saved ``<game>_tournament.json``); ``ValueError`` if it is not one."""
        try:
            fields = {
                k: data[k]
                for k in ("game", "options", "policies", "games_per_pair", "seed", "elo", "elo_se", "seconds_per_move")
            }
            pairs = [PairResult(**{**p, "interval": tuple(p["interval"])}) for p in data["pairs"]]
            llm = data.get("llm") or {}
            if not isinstance(llm, dict) or not all(
                isinstance(k, str)
                and isinstance(v, dict)
                and all(isinstance(n, int) and not isinstance(n, bool) for n in v.values())
                for k, v in llm.items()
            ):
                raise ValueError("'llm' must map policies to counts")
            result = cls(pairs=pairs, llm={k: dict(v) for k, v in llm.items()}, **fields)
            names = set(result.policies)
            if len(result.elo) != len(result.policies) or any(p.a not in names or p.b not in names for p in pairs):
                raise ValueError("pairs or ratings do not match the policies")
        except (KeyError, TypeError) as err:
            raise ValueError(f"not a tournament result: {err!r}") from None
        return result

    def win_shares(self) -> np.ndarray:
        """Row policy's win share against the column policy (NaN where no games; two players: B's share is the
        rest of A's)."""
        idx = {n: i for i, n in enumerate(self.policies)}
        share = np.full((len(self.policies),) * 2, np.nan)
        for p in self.pairs:
            i, j = idx[p.a], idx[p.b]
            share[i, j] = p.win_share
            if p.parity == 0.5:  # two players: B's share is the rest
                share[j, i] = 1.0 - p.win_share
        return share

    def markdown(self) -> str:
        """The pair table and the ratings as markdown."""
        lines = [
            f"### {self.game} {self.options or ''}: {self.games_per_pair} games per pair, seed {self.seed}",
            "",
            "| A | B | games | A wins | draws | A losses | A win share | 95% interval | parity | margin |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for p in self.pairs:
            lines.append(
                f"| {p.a} | {p.b} | {p.games} | {p.wins} | {p.draws} | {p.losses} | {p.win_share:.3f} | "
                f"[{p.interval[0]:.3f}, {p.interval[1]:.3f}] | {p.parity:.3f} | {p.mean_margin:+.3f} |"
            )
        lines += ["", "| policy | Elo (BT) | +- 1.96 se | s / move |", "|---|---|---|---|"]
        for name, r, s in sorted(zip(self.policies, self.elo, self.elo_se), key=lambda t: -t[1]):
            lines.append(f"| {name} | {r:+.0f} | {1.96 * s:.0f} | {self.seconds_per_move.get(name, 0.0):.4f} |")
        if self.llm:
            lines += [
                "",
                "| policy | decisions | asks | refused | no reply | random fallbacks | forfeits | tokens |",
                "|---|---|---|---|---|---|---|---|",
            ]
            for name in self.policies:
                c = self.llm.get(name)
                if c is not None:
                    lines.append(
                        f"| {name} | {c['decisions']} | {c['asks']} | {c['refused']} | {c['no_reply']} | "
                        f"{c['random_fallbacks']} | {c['forfeits']} | {c['tokens']} |"
                    )
        return "\n".join(lines)


LLM_COUNTS = ("decisions", "asks", "refused", "no_reply", "random_fallbacks", "forfeits", "tokens")
"""The illegal-move counts of a policy that keeps transcripts: :func:`llm_counts`."""


def llm_counts(records: Sequence[GameRecord]) -> dict[str, dict[str, int]]:
    """Per policy that keeps transcripts (``llm:``), over ``records``: ``decisions`` (moves it was asked for),
    ``asks`` (requests sent), ``refused`` (replies that named no legal move), ``no_reply`` (requests that failed:
    timeout, connection, HTTP error), ``random_fallbacks`` and ``forfeits`` (decisions the fallback made) and
    ``tokens`` (total, as the API reported them)."""
    counts: dict[str, dict[str, int]] = {}
    for rec in records:
        for entry in rec.transcripts:
            c = counts.setdefault(str(entry.get("policy")), dict.fromkeys(LLM_COUNTS, 0))
            c["decisions"] += 1
            for ask in entry.get("attempts", ()):
                c["asks"] += 1
                c["refused"] += ask.get("refusal") is not None
                c["no_reply"] += ask.get("error") is not None
                tokens = ask.get("tokens") or {}
                c["tokens"] += int(tokens.get("total") or 0)
            c["random_fallbacks"] += entry.get("fallback") == "random"
            c["forfeits"] += entry.get("fallback") == "forfeit"
    return counts


def summarise(
    game: str,
    options: dict[str, Any],
    specs: list[str],
    games_per_pair: int,
    seed: int,
    results: list[tuple[Task, GameRecord]],
    versus: bool = False,
) -> TournamentResult:
    """Turn finished games into pair statistics and ratings."""
    results = sorted(results, key=lambda t: t[0].index)
    n_players = envs.make_game(game, **options).num_players
    pairs = []
    comparisons: list[tuple[int, int, float]] = []
    think: dict[str, float] = {s: 0.0 for s in specs}
    moves: dict[str, int] = {s: 0 for s in specs}
    for a, b in ordered_pairs(len(specs), n_players, versus):
        wins = draws = losses = 0
        share = 0.0
        margins = []
        for task, rec in results:
            if task.pair != (a, b):
                continue
            r = rec.returns
            hero = task.hero_seat
            top = max(r)
            firsts = [i for i in range(n_players) if r[i] == top]
            if hero in firsts:
                if len(firsts) == 1:
                    wins += 1
                else:
                    draws += 1
                share += 1.0 / len(firsts)
            else:
                losses += 1
            others = [r[i] for i in range(n_players) if i != hero]
            margins.append(r[hero] - float(np.mean(others)))
            for i in range(n_players):
                if i == hero:
                    continue
                s = 1.0 if r[hero] > r[i] else 0.0 if r[hero] < r[i] else 0.5
                comparisons.append((a, b, s))
        count = wins + draws + losses
        pairs.append(
            PairResult(
                specs[a],
                specs[b],
                count,
                wins,
                draws,
                losses,
                share / max(count, 1),
                wilson_interval(share, count),
                1.0 / n_players,
                float(np.mean(margins)) if margins else 0.0,
            )
        )
    for _, rec in results:
        for name, sec in rec.think_seconds.items():
            think[name] += sec
            moves[name] += rec.decisions.get(name, 0)
    elo, se = fit_bradley_terry(len(specs), comparisons) if len(specs) > 1 else (np.zeros(1), np.zeros(1))
    return TournamentResult(
        game,
        dict(options),
        list(specs),
        games_per_pair,
        seed,
        pairs,
        [float(x) for x in elo],
        [float(x) for x in se],
        {s: think[s] / max(moves[s], 1) for s in specs},
        [rec for _, rec in results],
        llm_counts([rec for _, rec in results]),
    )


def run_tournament(
    game: str,
    options: dict[str, Any] | None,
    specs: Sequence[str],
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    progress: bool = True,
    versus: bool = False,
) -> TournamentResult:
    """Play every pair of ``specs`` for ``games`` games each (seats rotated), over ``workers`` processes.

    ``versus``: only ``specs[0]`` against each of the others (no baseline-against-baseline games); the games
    played are the same as the full tournament's for those pairs."""
    options = dict(options or {})
    specs = list(specs)
    if len(set(specs)) != len(specs):
        raise ValueError("each policy may appear only once in a tournament")
    if len(specs) < 2:
        raise ValueError("a tournament needs at least two policies")
    n_players = envs.make_game(game, **options).num_players  # options are checked before any worker starts
    total = check_game_count(len(specs), n_players, games, versus)  # before anything is loaded
    for s in specs:
        make_policy(s, game, options, seed=0)  # unknown names, missing or foreign checkpoints fail here
    jobs = tournament_jobs(game, options, specs, schedule(len(specs), n_players, games, seed, versus))
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=f"{game} tournament", unit="game")
        except ImportError:  # pragma: no cover - tqdm comes with the train extra
            bar = None
    results = []
    if workers <= 1:
        for job in jobs:
            results.append(run_task(job))
            if bar:
                bar.update(1)
    else:
        with worker_pool(workers) as pool:
            for res in pool.imap_unordered(run_task, jobs, chunksize=chunk_size(total, workers)):
                results.append(res)
                if bar:
                    bar.update(1)
    if bar:
        bar.close()
    return summarise(game, options, specs, games, seed, results, versus)


# ----- outputs ------------------------------------------------------------------------------------------------------
def win_matrix_png(result: TournamentResult, path: str | Path) -> Path:
    """A heat map of win shares: the row policy's share in one seat against the column policy in every other
    seat, with 95% intervals (diagonal blank); with two players each pair fills both cells."""
    names = result.policies
    k = len(names)
    share, low, high = (np.full((k, k), np.nan) for _ in range(3))
    idx = {n: i for i, n in enumerate(names)}
    parity = result.pairs[0].parity if result.pairs else 0.5
    for p in result.pairs:
        i, j = idx[p.a], idx[p.b]
        share[i, j], (low[i, j], high[i, j]) = p.win_share, p.interval
        if parity == 0.5:  # two players: B's share is the rest
            share[j, i], low[j, i], high[j, i] = 1.0 - p.win_share, 1.0 - p.interval[1], 1.0 - p.interval[0]
    options = ", ".join(f"{key}={value}" for key, value in result.options.items())
    title = (
        f"{result.game}{f' ({options})' if options else ''}: {result.games_per_pair} games per pair, seed {result.seed}"
    )
    return plot_win_matrix(names, share, low, high, parity, title, path)


def save_result(result: TournamentResult, out_dir: str | Path) -> tuple[Path, Path | None]:
    """Write ``<game>_tournament.json``, then ``<game>_tournament.png`` into ``out_dir``; the PNG path is None
    when matplotlib (the ``train`` extra) is missing: the JSON is written all the same."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / f"{result.game}_tournament.json"
    json_path.write_text(json.dumps(result.to_json(), indent=2))
    png_path = out / f"{result.game}_tournament.png"
    try:
        win_matrix_png(result, png_path)
    except ModuleNotFoundError as err:
        if not (err.name or "").startswith("matplotlib") and "matplotlib" not in str(err):
            raise
        return json_path, None
    return json_path, png_path


def main(argv: list[str] | None = None) -> None:
    """``python -m training evaluate``: run a tournament and print / save the tables."""
    import argparse

    from envs.common.options import parse_options

    parser = argparse.ArgumentParser(
        prog="python -m training evaluate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", required=True, help=f"one of {', '.join(envs.GAMES)}")
    parser.add_argument(
        "--policies",
        nargs="+",
        required=True,
        help="baseline names (random, greedy, search, search:BUDGET) and/or checkpoint paths "
        "(the network alone; sym:PATH: averaged over the game's symmetries; mcts:PATH:N: "
        "the network-guided search with N simulations; guided:PATH:K:N: the compiled search "
        "baseline over the network's K most likely moves, N simulations) and/or language models "
        "(llm:MODEL@URL[,retries=K,fallback=forfeit|random,timeout=S,...]: docs/llm.md)",
    )
    parser.add_argument("--games", type=int, default=100, help="games per pair of policies")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", default="runs/evaluate", help="folder for the JSON and PNG reports")
    parser.add_argument("--save-games", metavar="FILE", help="also save every game as a JSON record (replayable)")
    parser.add_argument(
        "--versus",
        action="store_true",
        help="play only the first policy against each of the others (same games as the full "
        "tournament for those pairs, none between the others)",
    )
    args = parser.parse_args(argv)
    if args.game not in envs.GAMES:
        parser.error(f"unknown game {args.game!r}; available: {', '.join(envs.GAMES)}")
    with command_errors(PolicyError):
        check_seed(args.seed)
        check_output_folder(args.out, "--out")
        if args.save_games:
            check_output_file(args.save_games, "--save-games")
        result = run_tournament(
            args.game,
            parse_options(args.env_option, args.game),
            args.policies,
            args.games,
            args.seed,
            args.workers,
            versus=args.versus,
        )
        print(result.markdown())
        json_path, png_path = save_result(result, args.out)
        if png_path is None:
            print(f'\nsaved {json_path}; no chart: matplotlib is missing (pip install -e ".[train]" draws it)')
        else:
            print(f"\nsaved {json_path} and {png_path}")
        if args.save_games:
            from training.arena.records import save_records

            print(f"saved {len(result.records)} games to {save_records(result.records, args.save_games)}")
