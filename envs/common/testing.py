"""Random playouts and invariant checks, reused by every game's tests."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from envs.common.game import TERMINAL, Game, IllegalActionError


def state_key(game: Game, state: Any) -> str:
    """A canonical string of a state (via its JSON), for equality checks."""
    return json.dumps(game.state_to_json(state), sort_keys=True)


def random_playout(
    game: Game,
    rng: np.random.Generator,
    state: Any = None,
    max_plies: int | None = None,
    on_state: Callable[[Any], None] | None = None,
) -> tuple[Any, int]:
    """Play uniformly random legal actions until the game ends (or ``max_plies``); return (state, plies).

    Asserts on the way that a live state always has a legal action and that the game ends (or truncates)
    within ``game.max_game_length`` plies.
    """
    if state is None:
        state = game.initial_state(rng)
    limit = game.max_game_length if max_plies is None else max_plies
    plies = 0
    while game.current_player(state) != TERMINAL and not game.is_truncated(state) and plies < limit:
        if on_state is not None:
            on_state(state)
        legal = np.flatnonzero(game.legal_mask(state))
        assert legal.size > 0, "live state with an empty action mask"
        game.apply(state, int(legal[rng.integers(legal.size)]), rng)
        plies += 1
    if max_plies is None:
        assert game.current_player(state) == TERMINAL or game.is_truncated(state), (
            f"game did not end within max_game_length={game.max_game_length} plies"
        )
    if on_state is not None:
        on_state(state)
    return state, plies


def check_mask_matches_apply(
    game: Game, state: Any, rng: np.random.Generator, max_legal: int = 64, max_illegal: int = 64
) -> None:
    """Masked-legal actions are accepted; others raise IllegalActionError and leave the state untouched.

    Checks up to ``max_legal`` legal and ``max_illegal`` illegal actions (sampled when there are more), plus
    out-of-range ids, on clones of ``state``.
    """
    if game.current_player(state) == TERMINAL:
        assert not game.legal_mask(state).any(), "finished game with a non-zero mask"
        return
    mask = game.legal_mask(state)
    assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
    legal = np.flatnonzero(mask)
    illegal = np.flatnonzero(mask == 0)
    if legal.size > max_legal:
        legal = rng.choice(legal, max_legal, replace=False)
    if illegal.size > max_illegal:
        illegal = rng.choice(illegal, max_illegal, replace=False)
    before = state_key(game, state)
    for a in legal.tolist():
        trial = game.clone(state)
        game.apply(trial, int(a), np.random.default_rng(0))
    for a in [*illegal.tolist(), -1, game.num_actions]:
        trial = game.clone(state)
        try:
            game.apply(trial, int(a), np.random.default_rng(0))
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"illegal action {a} ({_safe_str(game, state, a)}) was accepted")
        assert state_key(game, trial) == before, f"rejected action {a} changed the state"
    assert state_key(game, state) == before, "checking actions changed the original state"


def check_snapshot_roundtrip(game: Game, state: Any) -> None:
    """state -> JSON text -> state gives the same state, mask and observations."""
    data = json.loads(json.dumps(game.state_to_json(state)))
    back = game.state_from_json(data)
    assert state_key(game, back) == state_key(game, state)
    assert np.array_equal(game.legal_mask(back), game.legal_mask(state))
    for seat in range(game.num_players):
        assert np.array_equal(game.observation(back, seat), game.observation(state, seat))


def _safe_str(game: Game, state: Any, action: int) -> str:
    try:
        return game.action_to_str(state, int(action))
    except Exception:  # noqa: BLE001 - only for messages
        return "?"


def play_env_randomly(env: Any, seed: int, max_steps: int = 100_000) -> int:
    """Run one random game through an AEC env using its masks; returns the number of steps taken."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in env.agent_iter(max_steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"].view(bool))
            assert legal.size > 0, f"{agent} must act but its mask is empty"
            env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    return steps


def check_from_reference_games(
    ref: Game,
    fast: Any,
    games: int,
    seed: int,
    check: Callable[[Any, Any, int, np.ndarray, np.ndarray], None],
    rows: int = 3,
    row: int = 1,
) -> None:
    """Positions of ``games`` random games that the reference engine ``ref`` plays with its own generator (seeded
    ``seed``), each copied into row ``row`` of a batch of the batched engine ``fast`` at every decision
    (``from_reference``); ``check(ref_state, state, row, mask, views)`` compares the row with the reference state,
    given the batch's legal mask ``(rows, A)`` and every seat's observations ``(players, rows, *shape)``."""
    rng = np.random.default_rng(seed)
    state = fast.new_state(rows)
    mask = np.zeros((rows, fast.num_actions), dtype=bool)
    views = np.zeros((ref.num_players, rows, *fast.observation_shape), dtype=np.float32)
    for _ in range(games):
        s = ref.initial_state(rng)
        while True:
            fast.from_reference(s, state, row)
            fast.legal_mask(state, mask)
            for viewer in range(ref.num_players):
                fast.observe(state, np.full(rows, viewer), views[viewer])
            check(s, state, row, mask, views)
            if ref.is_terminal(s):
                break
            legal = ref.legal_actions(s)
            ref.apply(s, legal[rng.integers(len(legal))], rng)


def differential_sweep(
    option_sets: list[dict],
    ids: list[str],
    run_differential: Callable[[dict, int, int], int],
    default_games: int,
    argv: list[str] | None = None,
) -> None:
    """The command line of a longer differential sweep (``python tests/<game>/test_<game>_fast.py --games N``):
    ``run_differential(options, games, seed)`` for every option set, printing the positions it checked."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Longer differential sweep of the batched engine.")
    parser.add_argument("--games", type=int, default=default_games, help="games per option set")
    parser.add_argument("--seed", type=int, default=100)
    args = parser.parse_args(argv)
    for options, name in zip(option_sets, ids):
        start = time.perf_counter()
        checked = run_differential(options, args.games, args.seed)
        print(f"{name}: {args.games} games, {checked} positions identical ({time.perf_counter() - start:.0f} s)")


def play_fingerprint(make_env: Callable[[], Any], seeds: range, observe_all: bool) -> str:
    """sha256 of everything seeded random games through an AEC env show: per step the agent, ``last()`` (the
    observation's bytes, dtype and shape, the mask, reward, termination, truncation, info) and, with
    ``observe_all``, every live agent's observation and mask and every agent's rewards, terminations, truncations
    and infos. The actions are drawn from the masks with a generator seeded per game."""
    digest = hashlib.sha256()
    for seed in seeds:
        env = make_env()
        env.reset(seed=seed)
        rng = np.random.default_rng(seed + 1000)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            digest.update(agent.encode())
            digest.update(obs["observation"].tobytes())
            digest.update(obs["action_mask"].tobytes())
            digest.update(repr((float(reward), term, trunc, sorted(info.items()))).encode())
            digest.update(f"{obs['observation'].dtype}{obs['observation'].shape}{obs['action_mask'].dtype}".encode())
            if observe_all:
                for other in env.possible_agents:
                    if other in env.agents:
                        seen = env.observe(other)
                        digest.update(seen["observation"].tobytes())
                        digest.update(seen["action_mask"].tobytes())
                digest.update(
                    repr(
                        (
                            sorted(env.rewards.items()),
                            sorted(env.terminations.items()),
                            sorted(env.truncations.items()),
                            sorted((k, sorted(v.items())) for k, v in env.infos.items()),
                        )
                    ).encode()
                )
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
    return digest.hexdigest()


def engine_digests(game: str, options: dict[str, Any], seed: int = 0, search_budget: int = 24) -> dict[str, str]:
    """sha256 digests of seeded play through every engine of ``game`` (a registered id) with ``options``: what a
    refactor of the engines must leave unchanged (``tests/<game>/test_<game>_digests.py`` holds the recorded
    values).

    * ``aec``: :func:`play_fingerprint` of two random games through the AEC env;
    * ``vector``: 8 rows of random play for 150 steps through the batched engine's VectorEnv (observations,
      masks, rewards, ends, movers, and the compiled greedy's choices where the engine has them);
    * ``search``: ``search:<search_budget>`` against ``greedy`` (seats rotated, two games on the rule engine),
      every action taken;
    * ``root``: the search baseline's root visit counts at the first decisions of a random game with more than
      two legal actions (more than one in a game of two actions), or ``"none"`` where the search has no root to
      count."""
    import envs
    from envs.common.policies import decision_from_state, make_baseline

    out: dict[str, str] = {}
    mod = envs.module(game)
    out["aec"] = play_fingerprint(lambda: mod.env(**options), range(seed, seed + 2), observe_all=False)

    venv = mod.vector_env(8, **options)
    engine = venv.game
    h = hashlib.sha256()
    obs, info = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    greedy_rng = np.arange(1, 9, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    greedy_out = np.empty(8, dtype=np.int64)
    for _ in range(150):
        mask = info["action_mask"]
        h.update(obs.tobytes())
        h.update(mask.tobytes())
        h.update(np.asarray(info["current_player"], dtype=np.int64).tobytes())
        if engine.has_greedy_actions:
            engine.greedy_actions(venv.state, greedy_rng, greedy_out)
            h.update(greedy_out.tobytes())
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)
        obs, rewards, term, trunc, info = venv.step(actions)
        h.update(np.asarray(rewards, dtype=np.float64).tobytes())
        h.update(np.asarray(term, dtype=np.bool_).tobytes())
        h.update(np.asarray(trunc, dtype=np.bool_).tobytes())
    out["vector"] = h.hexdigest()

    rules = envs.make_game(game, **options)
    h = hashlib.sha256()
    for g in range(2):
        seats = [
            make_baseline(game, f"search:{search_budget}" if (p + g) % 2 == 0 else "greedy", options, seed + 7 * p + g)
            for p in range(rules.num_players)
        ]
        game_rng = np.random.default_rng(seed + 100 + g)
        state = rules.initial_state(game_rng)
        while rules.current_player(state) != TERMINAL and not rules.is_truncated(state):
            seat = rules.current_player(state)
            action = int(seats[seat].act(decision_from_state(rules, state)))
            h.update(action.to_bytes(8, "little", signed=True))
            rules.apply(state, action, game_rng)
        h.update(np.asarray(rules.returns(state), dtype=np.float64).tobytes())
    out["search"] = h.hexdigest()

    search = make_baseline(game, f"search:{search_budget}", options, seed)
    compiled: Any = search.compiled
    actions_h, visits_h = hashlib.sha256(), hashlib.sha256()
    game_rng = np.random.default_rng(seed + 200)
    search_rng = np.random.default_rng(seed + 300)
    state = rules.initial_state(game_rng)
    counted = 0
    choice = min(2, rules.num_actions - 1)  # decisions among more than 2 legal actions (1 in a game of 2 actions)
    while counted < 6 and rules.current_player(state) != TERMINAL:
        decision = decision_from_state(rules, state)
        legal = decision.legal_actions()
        if legal.size > choice:
            for root_actions in (None, legal[::-2].copy()):
                visits = np.zeros(rules.num_actions, dtype=np.int64)
                try:
                    action = compiled(decision.info_state, search_rng, root_actions=root_actions, root_visits=visits)
                    visits_h.update(visits.tobytes())
                except NotImplementedError:
                    out["visits"] = "none"
                    try:  # a search that counts no root visits: its choices among the root actions
                        action = compiled(decision.info_state, search_rng, root_actions=root_actions)
                    except NotImplementedError:
                        out["root"] = "none"
                        break
                actions_h.update(int(action).to_bytes(8, "little", signed=True))
            counted += 1
        if "root" in out:
            break
        rules.apply(state, int(legal[game_rng.integers(legal.size)]), game_rng)
    out.setdefault("root", actions_h.hexdigest())
    out.setdefault("visits", visits_h.hexdigest())
    return out


def option_sets(game: str) -> list[dict[str, Any]]:
    """The option sets the generic tests play for ``game``: its descriptor's ``test_option_sets`` when it gives
    them, else the defaults (``{}``) and then each allowed value of each option alone (a range's ends and middle),
    leaving out the sets the engine refuses (a value that needs another option changed)."""
    import envs
    from envs.common.game import ConfigError

    info = envs.game_info(game)
    if info.test_option_sets is not None:
        return [dict(o) for o in info.test_option_sets]
    out: list[dict[str, Any]] = [{}]
    for option in envs.game_options(game):
        if option.choices is not None:
            values = list(option.choices)
        else:
            values = sorted({option.low, (option.low + option.high) // 2, option.high})
        for value in values:
            if value == option.default:
                continue
            try:
                envs.make_game(game, **{option.name: value})
            except ConfigError:
                continue
            out.append({option.name: value})
    return out
