"""An env group as the rows of one state of the game's compiled batched engine (``envs/<game>/fast.py``):
:class:`BatchedSlots`, with :class:`~training.ppo.slots.GameSlots`' behaviour and reports."""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np

import envs
from envs.common.fastrng import seed_states
from envs.common.game import TERMINAL
from envs.common.policies import Decision, Policy
from envs.common.vector import batched_game_class, sample_legal
from training.ppo.buffer import pack_masks
from training.ppo.mix import KIND_CODES, LEARNER
from training.ppo.slots import Cut, Report, Slots, check_engine_state, rng_of
from training.run.opponents import POLICY, make_scripted
from training.shaping import relative_potential


def _encode_array(a: np.ndarray) -> dict[str, Any]:
    """An array as JSON-safe, exact data (dtype, shape, base64 of the bytes)."""
    a = np.ascontiguousarray(a)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode("ascii")}


def _decode_array(d: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(d["data"]), dtype=np.dtype(d["dtype"])).reshape(d["shape"]).copy()


class BatchedSlots(Slots):
    """Envs of one group as rows of one :class:`~envs.common.vector.BatchedGame` state (``envs/<game>/fast.py``),
    with :class:`GameSlots`' behaviour and reports: scripted seats are played here, every env stops at a
    network seat's decision, each env's games come from its own seed.

    The engine is driven directly (not through ``VectorEnv``), so that an ended game can be observed from every
    seat and its potentials read before its row restarts. Scripted seats: ``random`` draws uniformly from the
    legal mask with a compiled sampler (:func:`~envs.common.vector.sample_legal`) on a SplitMix64 generator per
    env, seeded per game as :class:`GameSlots` seeds its ``RandomPolicy``; ``greedy`` is the engine's compiled
    greedy (:meth:`~envs.common.vector.BatchedGame.greedy_actions`, on a SplitMix64 generator per env seeded per
    game alike) where the engine has one, else the game's ``GreedyPolicy`` on the row as a reference state
    (:meth:`~envs.common.vector.BatchedGame.to_reference`): exact and slow. Chance comes from each row's generator,
    so the games are not those :class:`GameSlots` deals from the same seeds.
    """

    def __init__(
        self,
        game: str,
        options: dict[str, Any],
        seeds: list[int],
        opponent_fraction: float = 0.0,
        opponent_mix: dict[str, float] | None = None,
        score_shaping: float = 0.0,
        opponent_policy: str = "",
        make_engine: Any = None,
    ):
        """``make_engine``: a factory ``(**options) -> BatchedGame`` to use instead of the game's (tests).
        ``opponent_policy`` must be empty: the ``policy`` kind plays on the reference engine only."""
        if POLICY in (opponent_mix or {}) or opponent_policy:
            raise ValueError("the 'policy' opponent kind plays on the reference engine only: set engine 'reference'")
        if make_engine is None:
            make_engine = batched_game_class(game)
            if make_engine is None:
                raise ValueError(f"{game} has no batched engine (envs/{game}/fast.py); use engine 'reference'")
        self.engine = make_engine(**options)
        self.options = dict(options)
        super().__init__(game, self.engine.num_players, seeds, opponent_fraction, opponent_mix, score_shaping)
        e, eng = self.num_envs, self.engine
        self.state = eng.new_state(e)
        self.kind_codes = np.zeros((e, self.n), dtype=np.int8)
        self.random_rng = np.zeros(e, dtype=np.uint64)
        """Per env: the generator of its ``random`` seats in the current game."""
        self.compiled_greedy = bool(getattr(eng, "has_greedy_actions", False))  # a BatchedGame or a test's stand-in
        """Greedy seats play the engine's compiled ``greedy_actions`` (else the Python ``GreedyPolicy``)."""
        self.greedy_rng = np.zeros(e, dtype=np.uint64)
        """Per env: the generator of its compiled ``greedy`` seats in the current game."""
        self.greedy: list[Policy | None] = [None] * e
        self.plies = np.zeros(e, dtype=np.int64)
        """Per env: plies played in the current game (an episode's ``length``)."""
        self._reference_game: Any = None
        self._rows = np.arange(e)
        self._mask = np.zeros((e, eng.num_actions), dtype=bool)
        self._obs = np.zeros((e, *eng.observation_shape), dtype=np.float32)

    @property
    def reference_game(self) -> Any:
        """The reference engine's ``Game`` with these options (for the greedy policy's decisions)."""
        if self._reference_game is None:
            self._reference_game = envs.make_game(self.game_name, **self.options)
        return self._reference_game

    # ----- commands -----------------------------------------------------------------------------------
    def reset(self, _: Any = None) -> Report:
        """Start every env (seeded) and play to the first network decisions."""
        self._clear_events()
        for i, seed in enumerate(self.seeds):
            self.state.rng[i] = seed_states(seed, 1)[0]
        self.engine.reset_rows(self.state, self._rows)
        self.plies[:] = 0
        for i in range(self.num_envs):
            self._begin(i)
        self._advance()
        return self.report()

    def step(self, actions: Any) -> Report:
        """Play one action per env (for the seat of the last report), then on to the next network decisions."""
        self._clear_events()
        self.engine.apply(self.state, np.asarray(actions, dtype=np.int64))
        self.plies += 1
        self._advance()
        return self.report()

    def _build_report(self) -> Report:
        eng, state = self.engine, self.state
        seats = eng.current_player(state).astype(np.int64)
        eng.legal_mask(state, self._mask)
        eng.observe(state, seats, self._obs)
        codes = self.kind_codes[self._rows, seats]
        potential = np.zeros(self.num_envs, dtype=np.float64)
        if self.score_shaping:
            learner = codes == KIND_CODES[LEARNER]
            potential[learner] = self._potentials(state)[self._rows, seats][learner]
        return Report(
            seats,
            codes.astype(np.int8),
            self._obs.copy(),
            pack_masks(self._mask),
            potential,
            self.ev_rewards.copy(),
            self.ev_ended.copy(),
            list(self.ev_new),
            self.ev_fresh.copy(),
            list(self.ev_cuts),
            list(self.ev_episodes),
            eng.num_actions,
        )

    # ----- inner workings -------------------------------------------------------------------------------
    def _begin(self, i: int) -> None:
        """Draw the seat controllers of env ``i``'s new game (its row has just been reset)."""
        controllers, seed = self._draw_controllers(i)
        self.kind_codes[i] = [KIND_CODES[c] for c in controllers]
        self.plies[i] = 0
        if seed is None:
            return
        if "random" in controllers:
            self.random_rng[i] = seed_states(seed, 1)[0]
        elif self.compiled_greedy:
            self.greedy_rng[i] = seed_states(seed, 1)[0]
        else:
            policy = self.greedy[i]
            if policy is None:
                policy = self.greedy[i] = make_scripted(self.game_name, "greedy", engine=self.reference_game)
            policy.reset(seed)

    def _potentials(self, state: Any) -> np.ndarray:
        """``(rows, n)`` shaping potentials of live games (:meth:`GameSlots._potential`)."""
        return relative_potential(
            np.asarray(self.engine.shaping_potential(state), dtype=np.float64), self.score_shaping
        )

    def _advance(self) -> None:
        """Play scripted seats and restart finished games until every env has a network seat to decide."""
        eng, state = self.engine, self.state
        while True:
            seats = eng.current_player(state)
            over = seats == TERMINAL
            cut = ~over & eng.truncated(state)
            if over.any() or cut.any():
                self._finish(np.flatnonzero(over | cut), over, cut)
                continue
            scripted = np.flatnonzero(self.kind_codes[self._rows, seats] >= KIND_CODES["random"])
            if scripted.size == 0:
                return
            self._play_scripted(scripted, seats[scripted].astype(np.int64))

    def _finish(self, rows: np.ndarray, over: np.ndarray, cut: np.ndarray) -> None:
        """Close the games of ``rows`` (ended or cut), then start new ones there."""
        eng, state = self.engine, self.state
        returns = np.asarray(eng.returns(state), dtype=np.float64)
        cuts: dict[int, Cut] = {}
        cut_rows = np.flatnonzero(cut)
        if cut_rows.size:  # every seat's view and the potentials at the cut, before the rows restart
            every = np.repeat(cut_rows, self.n)
            views = np.empty((every.size, *eng.observation_shape), dtype=np.float32)
            eng.observe(eng.take(state, every), np.tile(np.arange(self.n), cut_rows.size), views)
            potential = self._potentials(state)[cut_rows] if self.score_shaping else np.zeros((cut_rows.size, self.n))
            for k, i in enumerate(cut_rows.tolist()):
                cuts[i] = Cut(views[k * self.n : (k + 1) * self.n], potential[k])
        for i in rows.tolist():
            if over[i]:
                self.acc[i] += returns[i]
                self.ep_return[i] += returns[i]
            self._end_game(i, bool(cut[i]), self.plies[i], lambda i=i: cuts[i])
        eng.reset_rows(state, rows)  # each row's generator runs on: a new, different game
        for i in rows.tolist():
            self._begin(i)

    def _play_scripted(self, rows: np.ndarray, seats: np.ndarray) -> None:
        """One move of the scripted seat to move in each of ``rows``, played in place (the engine's
        ``apply_rows``): the other rows wait at a network seat."""
        eng, state = self.engine, self.state
        whole = rows.size == self.num_envs
        eng.legal_mask(state, self._mask)
        mask = self._mask[rows]
        actions = np.empty(rows.size, dtype=np.int64)
        codes = self.kind_codes[rows, seats]
        randoms = np.flatnonzero(codes == KIND_CODES["random"])
        if randoms.size:
            rng = self.random_rng[rows[randoms]]
            chosen = np.empty(randoms.size, dtype=np.int64)
            sample_legal(np.ascontiguousarray(mask[randoms]), rng, chosen)
            self.random_rng[rows[randoms]] = rng
            actions[randoms] = chosen
        greedy = np.flatnonzero(codes == KIND_CODES["greedy"])
        if greedy.size and self.compiled_greedy:
            rng = self.greedy_rng[rows[greedy]]
            chosen = np.empty(greedy.size, dtype=np.int64)
            movers = state if whole and greedy.size == rows.size else eng.take(state, rows[greedy])
            eng.greedy_actions(movers, rng, chosen)
            self.greedy_rng[rows[greedy]] = rng
            actions[greedy] = chosen
        elif greedy.size:
            game = self.reference_game
            views = np.empty((greedy.size, *eng.observation_shape), dtype=np.float32)
            eng.observe(eng.take(state, rows[greedy]), seats[greedy], views)
            for k, j in enumerate(greedy.tolist()):
                seat = int(seats[j])
                reference = eng.to_reference(state, int(rows[j]))
                decision = Decision(
                    game, seat, game.information_state(reference, seat), views[k], mask[j].view(np.int8).copy()
                )
                policy = self.greedy[int(rows[j])]
                assert policy is not None, "_begin gave the env's greedy seats their policy"
                actions[j] = policy.act(decision)
        if whole:
            eng.apply(state, actions)
        else:
            eng.apply_rows(state, rows, actions)
        self.plies[rows] += 1

    # ----- exact state, for --resume ----------------------------------------------------------------------
    def get_state(self, _: Any = None) -> dict[str, Any]:
        """A JSON-safe picture of the group (the engine's state arrays, generators, controllers, events)."""
        state = {
            "engine": "batched",
            "arrays": {name: _encode_array(a) for name, a in zip(self.state._fields, self.state)},
            "random_rng": _encode_array(self.random_rng),
            "greedy_rng": _encode_array(self.greedy_rng),
            "plies": self.plies.tolist(),
            "kind_codes": self.kind_codes.tolist(),
            "greedy": [None if p is None else rng_of(p).bit_generator.state for p in self.greedy],
            **self._common_state(),
        }
        return json.loads(json.dumps(state, default=int))

    def set_state(self, state: dict[str, Any]) -> Report:
        """Restore :meth:`get_state`'s picture; returns the report that was pending then."""
        check_engine_state(state, "batched")
        arrays = state["arrays"]
        if sorted(arrays) != sorted(self.state._fields):
            raise ValueError(
                f"saved engine state has fields {sorted(arrays)}, this engine {sorted(self.state._fields)}"
            )
        for name, target in zip(self.state._fields, self.state):
            saved = _decode_array(arrays[name])
            if saved.shape != target.shape or saved.dtype != target.dtype:
                raise ValueError(
                    f"saved engine field {name!r} is {saved.dtype}{saved.shape}, expected {target.dtype}{target.shape}"
                )
            target[...] = saved
        self.random_rng[:] = _decode_array(state["random_rng"])
        if "greedy_rng" in state:
            self.greedy_rng[:] = _decode_array(state["greedy_rng"])
        else:  # saved before the compiled greedy (its greedy seats were Python policies): a generator per env
            self.greedy_rng[:] = [np.random.SeedSequence([s, 3]).generate_state(1, np.uint64)[0] for s in self.seeds]
        self.plies[:] = state["plies"]
        self.kind_codes[:] = state["kind_codes"]
        for i, rng_state in enumerate(state["greedy"]):
            if rng_state is None:
                self.greedy[i] = None
                continue
            policy = self.greedy[i] = make_scripted(self.game_name, "greedy", engine=self.reference_game)
            rng_of(policy).bit_generator.state = rng_state
        self._set_common_state(state)
        return self._build_report()

    def close(self, _: Any = None) -> None:
        pass
