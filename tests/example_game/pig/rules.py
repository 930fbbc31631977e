"""The Pig rule engine: two players, one die, push your luck.

The rules (RULES.md, numbered there and cited below) in one paragraph: on your turn you roll a die as often
as you like (``roll``), adding each face to your *turn total*, until you either ``hold`` (bank the turn total
into your score and pass the turn) or roll a 1 (the turn total is lost and the turn passes). The first player
whose banked score reaches the target wins.

Chance comes only from the ``np.random.Generator`` argument of :meth:`PigGame.apply`: one ``rng.integers(6)``
per roll (the face is that plus one), the draw that :class:`envs.common.fastrng.MirrorRng` mirrors, so the
batched engine's differential test can make this engine roll the batched row's dice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.common.game import TERMINAL, Game, IllegalActionError, SnapshotError, pairwise_rewards
from envs.common.options import Option, OptionTable
from pig.actions import BUST, DIE_FACES, HOLD, ROLL, ActionCodec
from pig.kernels import OBSERVATION_SIZE, STATE

OPTIONS = OptionTable(
    Option("target", int, 20, "The banked score that wins the game.", low=10, high=100),
)
"""Pig's options (:mod:`envs.common.options`): what the engine checks, the docs and the forms show."""

PLIES_PER_POINT = 50
"""The ply cap (:attr:`PigGame.max_game_length`) is this many plies per point of the target: a game of random
moves takes about one ply a point, and a game that never ends (a 1 after every first roll) has probability 0."""


class PigState(STATE.reference_base()):  # type: ignore[misc]
    """A Pig position: the fields of the declaration (``kernels.STATE``) but the batched engine's own: the banked
    ``scores`` per seat, the ``turn_total`` of the player to move, who moves (``current``, TERMINAL when over) and the
    ``last_roll``. Fresh: both scores 0, seat 0 to roll."""

    __slots__ = ()


class PigGame(Game[PigState]):
    """Pig for two players. Option (:data:`OPTIONS`: its default and allowed values): ``target``, the banked score
    that wins."""

    name = "pig"
    num_players = 2
    observation_dtype = np.float32

    def __init__(self, **options: Any):
        """The game with ``options`` (:data:`OPTIONS`)."""
        self.target = OPTIONS.check(options, self.name)["target"]
        self.codec = ActionCodec()
        self.num_actions = self.codec.num_actions
        self.observation_shape = (OBSERVATION_SIZE,)
        self.max_game_length = PLIES_PER_POINT * self.target

    # ----- set-up ---------------------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """The options this game was built with."""
        return {"target": self.target}

    def initial_state(self, rng: np.random.Generator | None = None) -> PigState:
        """Both scores 0, seat 0 to roll (no set-up chance)."""
        return PigState()

    def blank_state(self) -> PigState:
        """A fresh state to fill in (:meth:`make_state`, ``render.state_from_json``)."""
        return PigState()

    def make_state(self, scores: list[int], turn_total: int = 0, current: int = 0, last_roll: int = 0) -> PigState:
        """A position from its fields (for tests, puzzles and snapshots), checked by :meth:`check_state`."""
        state = self.blank_state()
        state.scores = scores
        state.turn_total = turn_total
        state.current = current
        state.last_roll = last_roll
        self.check_state(state)
        state.scores = list(scores)
        return state

    def check_state(self, state: PigState) -> None:
        """SnapshotError (a ValueError) for a position no game reaches. A finished game has ``current`` = TERMINAL
        (-1) and the winner's score at the target or above."""
        turn_total, current, last_roll, scores = state.turn_total, state.current, state.last_roll, state.scores
        for name, value in (("turn_total", turn_total), ("current", current), ("last_roll", last_roll)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise SnapshotError(f"{name} must be an integer, got {value!r}")
        if (
            not isinstance(scores, list)
            or len(scores) != 2
            or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in scores)
        ):
            raise SnapshotError(f"scores must be a list of 2 integers >= 0, got {scores!r}")
        reached = [s >= self.target for s in scores]
        if current == TERMINAL:
            if sum(reached) != 1 or turn_total != 0 or last_roll != 0:
                raise SnapshotError("a finished game has one score at the target, no turn total and ends on a hold")
        elif current not in (0, 1) or any(reached):
            raise SnapshotError(f"a live game has a seat 0 or 1 to move and both scores below {self.target}")
        if not 0 <= last_roll <= DIE_FACES:
            raise SnapshotError(f"last_roll must be 0 (no roll: the turn's start) or a face 1..{DIE_FACES}")
        if last_roll in (0, BUST) and turn_total != 0:
            raise SnapshotError("a turn total needs a last roll of 2..6 (a 1 or a hold leaves it at 0)")
        if last_roll > BUST and turn_total < last_roll:
            raise SnapshotError("the turn total holds at least the last roll")

    # ----- the state machine ----------------------------------------------------------------------
    def current_player(self, state: PigState) -> int:
        """The seat to move, or TERMINAL."""
        return state.current

    def legal_mask(self, state: PigState) -> np.ndarray:
        """``roll`` while the game is live; ``hold`` when the turn total is above 0."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if state.current != TERMINAL:
            mask[ROLL] = 1
            mask[HOLD] = state.turn_total > 0
        return mask

    def apply(self, state: PigState, action: int, rng: np.random.Generator) -> None:
        """Roll (one draw from ``rng``) or hold; validates before any change."""
        action = self.check_action_range(action)
        if state.current == TERMINAL:
            raise IllegalActionError(f"action {action}: the game is over")
        seat = state.current
        if action == ROLL:
            face = int(rng.integers(DIE_FACES)) + 1
            state.last_roll = face
            if face == BUST:
                # RULES.md 3: a 1 loses the turn total and passes the turn.
                state.turn_total = 0
                state.current = 1 - seat
            else:
                # RULES.md 2: a face of 2 to 6 is added to the turn total; the player moves again.
                state.turn_total += face
            return
        if state.turn_total == 0:
            raise IllegalActionError("action 1 (hold): nothing to bank, the turn total is 0 (roll first)")  # rule 4
        # RULES.md 4: a hold banks the turn total and passes the turn; 5: the first banked score at the target wins.
        state.scores[seat] += state.turn_total
        state.turn_total = 0
        state.last_roll = 0
        state.current = TERMINAL if state.scores[seat] >= self.target else 1 - seat

    def winner(self, state: PigState) -> int:
        """The seat whose score reached the target, -1 while the game is live."""
        for seat in range(2):
            if state.scores[seat] >= self.target:
                return seat
        return -1

    def returns(self, state: PigState) -> np.ndarray:
        """+1 to the winner, -1 to the other; zeros while the game is live."""
        if state.current != TERMINAL:
            return np.zeros(2)
        return pairwise_rewards(state.scores)

    def scores(self, state: PigState) -> np.ndarray:
        """The banked scores."""
        return np.array(state.scores, dtype=np.float64)

    def clone(self, state: PigState) -> PigState:
        """An independent copy."""
        return state.clone()

    # ----- notation (the views, observation.py and render.py, come after the rules: Game.views) ----------
    def action_to_str(self, state: PigState, action: int) -> str:
        """``roll`` or ``hold``."""
        return self.codec.to_str(state, self.check_action_range(action))

    def str_to_action(self, state: PigState, text: str) -> int:
        """The action of ``roll`` / ``hold`` (any case) or an action id; IllegalActionError otherwise."""
        action = self.codec.parse(state, text)
        if action is None:
            if text.strip().isdigit() and int(text) < self.num_actions:
                return int(text)
            raise IllegalActionError(f"{text!r} is not a Pig move (roll or hold)")
        return action
