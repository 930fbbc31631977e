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

from envs.common.game import TERMINAL, Game, IllegalActionError, pairwise_rewards
from envs.common.options import Option, OptionTable
from pig import render
from pig.actions import BUST, DIE_FACES, HOLD, ROLL, ActionCodec
from pig.observation import SIZE, observe

OPTIONS = OptionTable(
    Option("target", int, 20, "The banked score that wins the game.", low=10, high=100),
)
"""Pig's options (:mod:`envs.common.options`): what the engine checks, the docs and the forms show."""

PLIES_PER_POINT = 50
"""The ply cap (:attr:`PigGame.max_game_length`) is this many plies per point of the target: a game of random
moves takes about one ply a point, and a game that never ends (a 1 after every first roll) has probability 0."""


class PigState:
    """A Pig position: the banked scores, the turn total of the player to move, who moves, the last roll."""

    __slots__ = ("scores", "turn_total", "current", "last_roll")

    def __init__(self) -> None:
        self.scores: list[int] = [0, 0]
        """Banked score per seat."""
        self.turn_total = 0
        """Points rolled this turn by the player to move, not yet banked."""
        self.current = 0
        """The seat to move, :data:`~envs.common.game.TERMINAL` once a score reached the target."""
        self.last_roll = 0
        """The face of the last roll when the last move was a roll (1: the turn was lost), else 0."""

    def clone(self) -> PigState:
        """An independent copy."""
        c = PigState.__new__(PigState)
        c.scores = self.scores[:]
        c.turn_total = self.turn_total
        c.current = self.current
        c.last_roll = self.last_roll
        return c


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
        self.observation_shape = (SIZE,)
        self.max_game_length = PLIES_PER_POINT * self.target

    # ----- set-up ---------------------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """The options this game was built with."""
        return {"target": self.target}

    def initial_state(self, rng: np.random.Generator | None = None) -> PigState:
        """Both scores 0, seat 0 to roll (no set-up chance)."""
        return PigState()

    def blank_state(self) -> PigState:
        """A fresh state to fill in (``render.make_state``)."""
        return PigState()

    def make_state(self, scores: list[int], turn_total: int = 0, current: int = 0, last_roll: int = 0) -> PigState:
        """A hand-made position (for tests and examples), checked: :func:`render.make_state`."""
        return render.make_state(self, scores, turn_total, current, last_roll)

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

    # ----- what a player sees ---------------------------------------------------------------------
    def observation(self, state: PigState, seat: int) -> np.ndarray:
        """float32 (5,) from ``seat``'s point of view (``observation.py``)."""
        return observe(self, state, seat)

    # ----- text, pictures, snapshots --------------------------------------------------------------
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

    def state_to_json(self, state: PigState) -> dict[str, Any]:
        """Exact JSON form (:func:`render.state_to_json`)."""
        return render.state_to_json(self, state)

    def state_from_json(self, data: dict[str, Any]) -> PigState:
        """Inverse of :meth:`state_to_json` (:func:`render.state_from_json`)."""
        return render.state_from_json(self, data)

    def render_ansi(self, state: PigState) -> str:
        """The text picture (:func:`render.render_ansi`)."""
        return render.render_ansi(self, state)

    def render_rgb(self, state: PigState) -> np.ndarray:
        """The picture (:func:`render.render_rgb`)."""
        return render.render_rgb(self, state)
