"""Boaring: feed the animals of the savanna with hidden, simultaneous food bids (2-10 players).

=====================  ==========================================================================================
Import                 ``from envs import boaring_v0``; ``boaring_v0.env(num_players=4)``; the parallel view
                       ``boaring_v0.parallel_env(num_players=4)`` (one step = one simultaneous bid)
Options                ``num_players``, ``reward``, ``render_mode``: the Options section below
Agents                 ``player_0 .. player_{n-1}`` in clockwise order; ``player_0`` is the first active player
Action space           ``Discrete(14 + 3 (n - 1))``: 0-9 play food value 1-10; 10 do not eat; 11-13 a living
                       hyena eats a boar / hyena / lion from its owner's graveyard; 14 + 3 (o - 1) + t a living
                       lion eats type t from the savanna of the player o seats after the eater (clockwise)
Observation            ``{"observation": float32[68 + 22 n], "action_mask": int8[num_actions]}`` from the
                       observer's seat (others in turn order after it): own hand, own pending card, phase,
                       animal, requirement, who is active / to move / has committed (not what), the last reveal,
                       every player's savanna, graveyard, hand size and score, discard counts, animals left,
                       eaten animals, food pile size. Nothing of another player's hand or pending card.
Turn order (AEC)       Each round: the active player commits a card first, then the others clockwise; no
                       observation shows a committed card until all are in, then all are revealed together. A
                       living hyena / lion with a target gives its receiver one extra eat decision.
Rewards                terminal only, zero-sum. ``"pairwise"``: each seat gets (seats it beats - seats that beat
                       it) / (n - 1) over rank keys (score, savanna boars, lions, hyenas), so a sole winner gets
                       +1 and tied seats share. ``"score"``: final score minus the mean score.
Notation               ``play 7``, ``no eat``, ``eat boar`` (hyena), ``eat lion of p2`` (lion; absolute seat)
Global state           ``env.state()`` (AEC and Parallel; ``state_space``): **privileged**, for centralised
                       critics only: player_0's observation, a one-hot of the seat to move, every seat's hand
                       (n x 10, / 7) and face-down card of the round (n x 10 one-hot); float32[68 + 43 n]
=====================  ==========================================================================================

Options
    .. options: generated from OPTIONS in rules.py by ``python -m envs.common.options``; do not edit
    ``num_players``: 2 .. 10; default ``4``. Players, in clockwise order.
    ``reward``: ``"pairwise"`` | ``"score"``; default ``"pairwise"``. "pairwise": each seat gets (seats it beats - seats
        that beat it) / (n-1) over the rank keys (score, savanna boars, lions, hyenas); "score": final score minus the
        mean score.
    ``render_mode`` (the env only): ``None`` (default) | ``"human"`` | ``"ansi"`` | ``"rgb_array"``.
    .. end of options

The observation's blocks, in order (relative seat k is the player k seats after the observer, clockwise; the
details and scales in ``envs/boaring/observation.py``):

================  ======  ==============================================================================
block             size    content
================  ======  ==============================================================================
hand              10      my food cards: count of value v at index v-1, / 7
my_pending        10      one-hot of the card I committed this round
phase             3       one-hot bid, eat, game over
animal            3       one-hot type of the animal on the table
requirement       10      one-hot value of the turned food card
active            n       one-hot relative seat of the active player (once over: the last round's)
to_move           n       one-hot relative seat of the player to act
committed         n       1 per relative seat that has committed a card this round (not what)
last_played       n x 10  the last reveal: row k one-hot of the card of relative seat k
last_animal       3       one-hot type of the animal of the last reveal
last_outcome      2       one-hot lived, died
last_receiver     n       one-hot relative seat that received the last animal
last_requirement  10      one-hot food card value of the last revealed round
players           n x 8   per relative seat: savanna boars, hyenas, lions, graveyard boars, hyenas, lions,
                          hand size, score
discard           10      discard pile count per value / 7
animals_left      3       animal deck by type
eaten             3       eaten animals by type
pile_size         1       food pile size / 70
================  ======  ==============================================================================

``raw_env`` raises :class:`~envs.common.game.IllegalActionError` on an illegal action; ``env()`` adds
PettingZoo's standard wrappers (an illegal move ends the game with -1 to the mover). The rules as implemented,
every reading and the encodings in detail: ``envs/boaring/RULES.md``.

Version history:

=======  ==========  ===================================================================================
version  package     changes
=======  ==========  ===================================================================================
v0       0.1.0       first release
v0       unreleased  ``state()`` returns the privileged global state (it raised NotImplementedError);
                     observations, actions, rewards and dynamics unchanged, so the version stays v0
=======  ==========  ===================================================================================
"""

from __future__ import annotations

from typing import Any, ClassVar

from envs.boaring.rules import BoaringGame
from envs.common.aec import BarnyardAECEnv
from envs.common.game import Game


class raw_env(BarnyardAECEnv):
    """The Boaring AEC env without wrappers."""

    metadata: ClassVar[dict] = {**BarnyardAECEnv.metadata, "name": "boaring_v0"}
    game_class = BoaringGame

    @classmethod
    def observation_bounds(cls, game: Game) -> tuple[Any, Any]:
        """Each entry's bounds as the observation layout scales it."""
        return game.layout.low, game.layout.high  # type: ignore[attr-defined]
