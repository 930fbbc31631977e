"""The Boaring rule engine: hidden simultaneous food bids, committed one seat at a time.

Rulebook (shared/rulebooks/boaring.txt) in one paragraph: each round the active player turns up the top animal
and the top food card; the food card's value times the number of players is what the animal needs. Every
player lays one food card face down; they are turned at the same time. Enough food: the animal lives and goes
to the savanna of the player who fed most (a hyena may first eat an animal from its receiver's graveyard, a lion
one from someone else's savanna). Too little: it dies and goes to the graveyard of the player who fed least.
Equal cards are ordered by who was active most recently. Savanna animals score 2, graveyard animals -1.

Simultaneous moves the OpenSpiel way: in the bid phase the players commit one after another (the active player
first, then clockwise); a committed card stays hidden from every observation until the last card is in, then
all are revealed together (``last_played``). Every reading where the rulebook is silent is in RULES.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.boaring import actions as A
from envs.boaring.actions import (
    ANIMAL_COUNTS,
    ANIMAL_NAMES,
    BID,
    BOAR,
    COPIES_PER_VALUE,
    DIED,
    EAT,
    HYENA,
    LION,
    LIVED,
    NUM_ANIMALS,
    NUM_FOOD,
    NUM_TYPES,
    NUM_VALUES,
    OVER,
    UNKNOWN,
    ActionCodec,
    count_food,
    expand_food,
)
from envs.boaring.kernels import STATE
from envs.common.game import (
    TERMINAL,
    Game,
    IllegalActionError,
    SnapshotError,
    pairwise_rewards,
)
from envs.common.options import Option, OptionTable

REWARD_SCHEMES = ("pairwise", "score")

OPTIONS = OptionTable(
    Option("num_players", int, 4, "Players, in clockwise order.", low=2, high=10, label="players"),
    Option(
        "reward",
        str,
        "pairwise",
        '"pairwise": each seat gets (seats it beats - seats that beat it) / (n-1) over the rank keys (score, '
        'savanna boars, lions, hyenas); "score": final score minus the mean score.',
        choices=REWARD_SCHEMES,
    ),
)
"""Boaring's options (:mod:`envs.common.options`): what the engine checks, the docs and the forms show."""


class BoaringState(STATE.reference_base()):  # type: ignore[misc]
    """A Boaring position: the fields of the declaration (``kernels.STATE``, each documented there) but the batched
    engine's own (the pile and deck lengths are the lists' lengths, no ply counter, no generator). Lists are mutated
    in place by :meth:`BoaringGame.apply`; use ``clone``.

    Food values are 1..10 (index ``v - 1`` in count lists); animal types 0 boar, 1 hyena, 2 lion. Piles are
    lists whose *last* element is the top card. An information state holds ``UNKNOWN`` in the hands, the pending
    cards and the piles. ``BoaringState(players=n)``: every field fresh (no card dealt, no animal counted, no animal
    on the table: the set-up deals them)."""

    __slots__ = ()


class BoaringGame(Game[BoaringState]):
    """Boaring for 2-10 players.

    Options (:data:`OPTIONS`: their defaults and allowed values): ``num_players``; ``reward``, ``"pairwise"``
    (pairwise_rewards over the rank keys: score, savanna boars, lions, hyenas) or ``"score"`` (final score minus
    the mean score).
    """

    name = "boaring"
    observation_dtype = np.float32
    perfect_information = False
    hidden_information_note = "every player's hand and face-down bid"
    privileged_global_state = True

    def __init__(self, **options: Any):
        """The game with ``options`` (:data:`OPTIONS`)."""
        o = OPTIONS.check(options, self.name)
        self.num_players = n = o["num_players"]
        self.reward = o["reward"]
        self.codec = ActionCodec(n)
        self.num_actions = self.codec.num_actions
        # "2-6 players: Every player receives 10 food cards ... >6 players: The food cards are evenly
        # distributed among the number of players and the food pile deck": n + 1 equal stacks.
        self.deal_size = 10 if n <= 6 else NUM_FOOD // (n + 1)
        self.observation_shape = (observation_size(n),)
        # every round: n bids and at most one eat decision
        self.max_game_length = NUM_ANIMALS * (n + 1)
        # priority order for equal cards, per active seat: the active player, then the most recently active
        self._priority = [[(a - k) % n for k in range(n)] for a in range(n)]
        self._play_masks: dict[tuple[int, ...], np.ndarray] = {}
        self._blank = BoaringState(players=n)
        """A fresh state, copied by :meth:`blank_state` (a copy is faster than building one)."""

    # ----- set-up ---------------------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        """The options this game was built with."""
        return {"num_players": self.num_players, "reward": self.reward}

    def initial_state(self, rng: np.random.Generator) -> BoaringState:
        """Shuffle both decks, deal the food hands, turn up the first animal and food card."""
        n = self.num_players
        state = self.blank_state()
        animals = [BOAR] * ANIMAL_COUNTS[BOAR] + [HYENA] * ANIMAL_COUNTS[HYENA] + [LION] * ANIMAL_COUNTS[LION]
        state.animal_deck = [animals[i] for i in rng.permutation(NUM_ANIMALS).tolist()]
        state.animals_left = list(ANIMAL_COUNTS)
        food = expand_food([COPIES_PER_VALUE] * NUM_VALUES)
        food = [food[i] for i in rng.permutation(NUM_FOOD).tolist()]
        k = self.deal_size
        for s in range(n):
            state.hands[s] = count_food(food[s * k : (s + 1) * k])
            state.hand_size[s] = k
        state.food_pile = food[n * k :]
        self._start_round(state, rng)
        return state

    def make_state(self, hands: list[list[int]], animal: int | str, requirement: int, **position: Any) -> BoaringState:
        """A hand-made position at the start of a bid (for tests, puzzles and examples): :func:`make_state`
        (``active``, ``savanna``, ``graveyard``, ``animal_deck``, ``eaten``, ``discard``, ``food_pile``)."""
        return make_state(self, hands, animal, requirement, **position)

    def blank_state(self) -> BoaringState:
        """An empty state of this player count (every field fresh: zero, empty or -1 for none), to be filled in."""
        return self._blank.clone()

    # ----- the state machine ----------------------------------------------------------------------
    def current_player(self, state: BoaringState) -> int:
        """The seat to commit a card (active first, then clockwise), the eater, or TERMINAL."""
        return state.current

    def legal_mask(self, state: BoaringState) -> np.ndarray:
        """Bid phase: the values in the mover's hand. Eat phase: 'no eat' and every available target."""
        if state.phase == BID:
            key = tuple(state.hands[state.current])
            mask = self._play_masks.get(key)
            if mask is None:
                mask = np.zeros(self.num_actions, dtype=np.int8)
                for i, c in enumerate(key):
                    if c > 0:
                        mask[i] = 1
                if len(self._play_masks) < 100_000:
                    self._play_masks[key] = mask
            return mask.copy()
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if state.phase == EAT:
            for a in self._eat_actions(state):
                mask[a] = 1
        return mask

    def legal_actions(self, state: BoaringState) -> list[int]:
        """Legal action ids, ascending (fast list version)."""
        if state.phase == BID:
            hand = state.hands[state.current]
            return [i for i in range(NUM_VALUES) if hand[i] > 0]
        if state.phase == EAT:
            return self._eat_actions(state)
        return []

    def seats_to_move(self, state: BoaringState) -> dict[int, list[int]]:
        """Bid phase: every seat yet to lay its card face down (the player to move first), with the values in its
        hand; else the player to move, as :meth:`Game.seats_to_move`."""
        if state.phase != BID:
            return super().seats_to_move(state)
        seats = [(state.current + k) % self.num_players for k in range(self.num_players - state.ncommitted)]
        return {s: [v for v in range(NUM_VALUES) if state.hands[s][v] > 0] for s in seats}

    def _eat_actions(self, state: BoaringState) -> list[int]:
        """'No eat' plus the targets of the living hyena / lion on the table."""
        out = [A.NO_EAT]
        eater = state.eater
        if state.animal == HYENA:
            grave = state.graveyard[eater]
            out.extend(A.HYENA_BASE + t for t in range(NUM_TYPES) if grave[t] > 0)
        elif state.animal == LION:
            n = self.num_players
            for o in range(1, n):
                sav = state.savanna[(eater + o) % n]
                out.extend(A.LION_BASE + NUM_TYPES * (o - 1) + t for t in range(NUM_TYPES) if sav[t] > 0)
        return out

    def apply(self, state: BoaringState, action: int, rng: np.random.Generator) -> None:
        """Commit a food card (bid phase) or make the eat decision (eat phase); validates before any change."""
        action = self.check_action_range(action)
        phase = state.phase
        if phase == BID:
            seat = state.current
            if action >= A.NO_EAT:
                raise IllegalActionError(
                    f"action {action} ({A.to_str(action, seat, self.num_players)}) is an eat decision, but p{seat} "
                    "must play a food card now"
                )
            hand = state.hands[seat]
            if hand[action] <= 0:
                raise IllegalActionError(
                    f"action {action} (play {action + 1}): p{seat} holds no card of value {action + 1}"
                )
            # "Every player plays a food card of choice by laying it upside down on the table."
            hand[action] -= 1
            state.hand_size[seat] -= 1
            state.pending[seat] = action + 1
            state.ncommitted += 1
            if state.ncommitted < self.num_players:
                state.current = (seat + 1) % self.num_players
            else:
                self._resolve(state, rng)
            return
        if phase == EAT:
            if action not in self._eat_actions(state):
                raise IllegalActionError(self._why_not_eat(state, action))
            eater = state.eater
            kind, a, b = A.decode(action)
            if kind == "hyena":
                # "A hyena can directly eat an animal of your graveyard, before continuing to your savanna."
                state.graveyard[eater][a] -= 1
                state.eaten[a] += 1
            elif kind == "lion":
                # "A lion can directly eat an animal from a savanna of someone else, before continuing..."
                state.savanna[(eater + a) % self.num_players][b] -= 1
                state.eaten[b] += 1
            state.savanna[eater][state.animal] += 1
            self._end_round(state, rng)
            return
        raise IllegalActionError(f"action {action}: the game is over")

    def _why_not_eat(self, state: BoaringState, action: int) -> str:
        """The message of an illegal action in the eat phase."""
        n = self.num_players
        kind, a, b = A.decode(action)
        text = f"action {action} ({A.to_str(action, state.eater, n)})"
        animal = ANIMAL_NAMES[state.animal]
        if kind == "play":
            return f"{text}: p{state.eater} must decide what the living {animal} eats, not play food"
        if kind == "hyena" and state.animal != HYENA:
            return f"{text}: only a hyena eats from its owner's graveyard; the animal is a {animal}"
        if kind == "lion" and state.animal != LION:
            return f"{text}: only a lion eats from another savanna; the animal is a {animal}"
        if kind == "hyena":
            return f"{text}: there is no {ANIMAL_NAMES[a]} in p{state.eater}'s graveyard"
        return f"{text}: there is no {ANIMAL_NAMES[b]} on p{(state.eater + a) % n}'s savanna"

    def _resolve(self, state: BoaringState, rng: np.random.Generator) -> None:
        """All cards are in: reveal them and decide the animal's fate."""
        n = self.num_players
        pending = state.pending
        state.last_played = pending[:]
        state.last_animal = state.animal
        state.last_requirement = state.requirement
        # "In the case of equal deciding food cards, the deciding card of the person whose turn it is - followed
        # by the players whose turn it was most recently in consecutive order - as the higher value card."
        order = self._priority[state.active]
        best = worst = order[0]
        best_v = worst_v = pending[best]
        total = best_v
        for s in order[1:]:
            v = pending[s]
            total += v
            if v > best_v:
                best, best_v = s, v
            if v <= worst_v:
                worst, worst_v = s, v
        # "The value of the food card multiplied by the number of players is the minimum amount of food"
        if total >= state.requirement * n:
            state.last_outcome = LIVED
            state.last_receiver = best
            animal = state.animal
            if (animal == HYENA and any(state.graveyard[best])) or (
                animal == LION and any(any(state.savanna[s]) for s in range(n) if s != best)
            ):
                state.phase = EAT
                state.eater = best
                state.current = best
                return
            state.savanna[best][animal] += 1
        else:
            # "The player who put in the lowest amount of food receives the dead animal on his/her graveyard."
            state.last_outcome = DIED
            state.last_receiver = worst
            state.graveyard[worst][state.animal] += 1
        self._end_round(state, rng)

    def _end_round(self, state: BoaringState, rng: np.random.Generator) -> None:
        """Discard the open food cards, pass the turn, re-deal if the hands are empty, start the next round."""
        n = self.num_players
        # "At the end of a turn all open food cards on the table leave the game."
        discard = state.discard
        for v in state.pending:
            discard[v - 1] += 1
        discard[state.requirement - 1] += 1
        state.pending = [0] * n
        state.ncommitted = 0
        state.animal = -1
        state.requirement = 0
        state.phase = BID
        state.eater = -1
        state.rounds += 1
        # "The game ends when all animal cards are gone." Only then: "The turn of the next player starts", so at
        # the end ``active`` stays the last round's active player.
        if not state.animal_deck:
            state.phase = OVER
            state.current = TERMINAL
            return
        state.active = (state.active + 1) % n
        if state.hand_size[0] == 0:
            self._redeal(state, rng)
        self._start_round(state, rng)

    def _redeal(self, state: BoaringState, rng: np.random.Generator) -> None:
        """'If the food cards in the hands of the players run out before the animal cards are gone, the food
        cards that left the game are shuffled and distributed as during the preparation of the game limited to
        the amount of cards that is present in the animal deck on the table.' The undealt rest of the discard
        goes under the food pile."""
        n = self.num_players
        k = min(self.deal_size, len(state.animal_deck))
        cards = expand_food(state.discard)
        state.discard = [0] * NUM_VALUES
        if len(cards) < n * k:  # cannot happen with 70 cards (see RULES.md); kept as a safe fallback
            cards.extend(state.food_pile)
            state.food_pile = []
        cards = [cards[i] for i in rng.permutation(len(cards)).tolist()]
        for s in range(n):
            state.hands[s] = count_food(cards[s * k : (s + 1) * k])
            state.hand_size[s] = k
        state.food_pile = cards[n * k :] + state.food_pile
        state.deals += 1

    def _start_round(self, state: BoaringState, rng: np.random.Generator) -> None:
        """'The player whose turn it is lays the top animal- and food card open on the table.'"""
        animal = state.animal_deck.pop()
        state.animal = animal
        state.animals_left[animal] -= 1
        if not state.food_pile:
            # reading: an empty food pile is refilled from the shuffled discard
            cards = expand_food(state.discard)
            state.discard = [0] * NUM_VALUES
            state.food_pile = [cards[i] for i in rng.permutation(len(cards)).tolist()]
        state.requirement = state.food_pile.pop()
        state.current = state.active

    # ----- results --------------------------------------------------------------------------------
    def scores(self, state: BoaringState) -> np.ndarray:
        """'Every animal on the savanna is worth two points and each animal on the graveyard counts as a
        negative point.' (Meaningful mid-game too.)"""
        return np.array(
            [2 * sum(state.savanna[s]) - sum(state.graveyard[s]) for s in range(self.num_players)], dtype=np.float64
        )

    def rank_keys(self, state: BoaringState) -> list[tuple[int, int, int, int]]:
        """Per seat (score, savanna boars, savanna lions, savanna hyenas): the rulebook's ranking order."""
        out = []
        for s in range(self.num_players):
            sav = state.savanna[s]
            score = 2 * sum(sav) - sum(state.graveyard[s])
            out.append((score, sav[BOAR], sav[LION], sav[HYENA]))
        return out

    def winners(self, state: BoaringState) -> list[int]:
        """Seats sharing first place after the tie-breaks (all tied seats on a full draw)."""
        keys = self.rank_keys(state)
        top = max(keys)
        return [s for s, k in enumerate(keys) if k == top]

    def returns(self, state: BoaringState) -> np.ndarray:
        """Zero-sum terminal rewards (see the class docstring); zeros while the game is live."""
        if state.phase != OVER:
            return np.zeros(self.num_players, dtype=np.float64)
        if self.reward == "score":
            scores = self.scores(state)
            return scores - scores.mean()
        return pairwise_rewards(self.rank_keys(state))

    def clone(self, state: BoaringState) -> BoaringState:
        """An independent copy of ``state``."""
        return state.clone()

    # ----- hidden information ---------------------------------------------------------------------------
    def information_state(self, state: BoaringState, seat: int) -> BoaringState:
        """A copy with only what ``seat`` knows: other hands, hidden pending cards and deck orders unknown.

        Other players' hands become ``[UNKNOWN] * 10`` (``hand_size`` stays: it is public); in the bid phase their
        committed cards become ``UNKNOWN`` (uncommitted stay 0); every food pile and animal deck entry becomes
        ``UNKNOWN`` (their lengths and ``animals_left`` stay: public). Everything else is public. Fill the
        placeholders with :meth:`determinize` before calling ``apply``.
        """
        info = state.clone()
        for s in range(self.num_players):
            if s != seat:
                info.hands[s] = [UNKNOWN] * NUM_VALUES
                if state.phase == BID and info.pending[s]:
                    info.pending[s] = UNKNOWN
        info.food_pile = [UNKNOWN] * len(state.food_pile)
        info.animal_deck = [UNKNOWN] * len(state.animal_deck)
        return info

    def unknown_food(self, info: BoaringState, seat: int) -> list[int]:
        """Food counts per value that ``seat`` cannot locate in ``info`` (:func:`unknown_food`)."""
        return unknown_food(info, seat)

    def determinize(self, info: BoaringState, seat: int, rng: np.random.Generator) -> BoaringState:
        """A full state consistent with ``information_state(.., seat)``: the unknown cards dealt at random."""
        n = self.num_players
        state = info.clone()
        cards = expand_food(self.unknown_food(info, seat))
        cards = [cards[i] for i in rng.permutation(len(cards)).tolist()]
        pos = 0
        for s in range(n):
            if s == seat:
                continue
            if state.pending[s] == UNKNOWN:
                state.pending[s] = cards[pos]
                pos += 1
            k = state.hand_size[s]
            state.hands[s] = count_food(cards[pos : pos + k])
            pos += k
        state.food_pile = cards[pos:]
        animals: list[int] = []
        for t in range(NUM_TYPES):
            animals.extend([t] * state.animals_left[t])
        state.animal_deck = [animals[i] for i in rng.permutation(len(animals)).tolist()]
        return state

    # ----- notation ------------------------------------------------------------------------------
    def action_to_str(self, state: BoaringState, action: int) -> str:
        """``play 7``, ``no eat``, ``eat boar`` (hyena, own graveyard) or ``eat lion of p2`` (lion)."""
        return self.codec.to_str(state, self.check_action_range(action))


# ----- what the Game's methods share ------------------------------------------------------------------------------
def observation_size(n: int) -> int:
    """Entries of the observation vector for ``n`` players: ``68 + 22 n`` (the blocks of the layout in
    ``observation.py``, ``ObservationLayout``, which tests/boaring checks against this)."""
    return 68 + 22 * n


def unknown_food(info: Any, seat: int) -> list[int]:
    """Food counts per value that ``seat`` cannot locate: other hands, hidden pending cards and the pile."""
    counts = [COPIES_PER_VALUE] * NUM_VALUES
    for i, c in enumerate(info.hands[seat]):
        counts[i] -= c
    for i, c in enumerate(info.discard):
        counts[i] -= c
    for v in info.pending:
        if v > 0:
            counts[v - 1] -= 1
    if info.requirement:
        counts[info.requirement - 1] -= 1
    return counts


def check_consistent(game: BoaringGame, state: BoaringState) -> None:
    """Raise SnapshotError unless the state's books balance (card values and animal types in range first)."""
    n = game.num_players
    for name, values, low, high in (
        ("pending", state.pending, 0, NUM_VALUES),
        ("last_played", state.last_played, 0, NUM_VALUES),
        ("food_pile", state.food_pile, 1, NUM_VALUES),
        ("animal_deck", state.animal_deck, 0, NUM_TYPES - 1),
    ):
        if any(not low <= v <= high for v in values):
            raise SnapshotError(f"{name} has a value outside [{low}, {high}]: {values}")
    if not (
        0 <= state.active < n
        and state.phase in (BID, EAT, OVER)
        and -1 <= state.animal < NUM_TYPES
        and 0 <= state.requirement <= NUM_VALUES
    ):
        raise SnapshotError("active seat, phase, animal or requirement out of range")
    if state.phase == OVER:
        if state.current != TERMINAL or state.animal != -1 or state.animal_deck:
            raise SnapshotError("a finished game must have no animal left and no player to move")
    elif state.animal < 0 or state.requirement == 0:
        raise SnapshotError("a live game needs an animal and a food card on the table")
    if state.phase == BID:
        committed = sum(1 for v in state.pending if v)
        if committed != state.ncommitted or committed >= n or state.current != (state.active + committed) % n:
            raise SnapshotError("pending cards do not match the commit order")
        if any(state.pending[(state.active + k) % n] == 0 for k in range(committed)):
            raise SnapshotError("pending cards do not match the commit order")
    if state.phase == EAT and not (
        0 <= state.eater < n
        and state.current == state.eater
        and state.ncommitted == n
        and all(state.pending)
        and state.animal in (HYENA, LION)
    ):
        raise SnapshotError("inconsistent eat phase")
    tables = state.hands + state.savanna + state.graveyard + [state.eaten, state.discard, state.animals_left]
    if any(x < 0 for row in tables for x in row) or any(x < 0 for x in state.hand_size):
        raise SnapshotError("negative card or animal count")
    for s in range(n):
        if sum(state.hands[s]) != state.hand_size[s]:
            raise SnapshotError(f"hand_size of p{s} does not match the hand")
    food = [0] * NUM_VALUES
    for h in state.hands:
        for i, c in enumerate(h):
            food[i] += c
    for v in state.pending + state.food_pile + ([state.requirement] if state.requirement else []):
        if v:
            food[v - 1] += 1
    for i, c in enumerate(state.discard):
        food[i] += c
    if food != [COPIES_PER_VALUE] * NUM_VALUES:
        raise SnapshotError(f"food cards do not add up to 7 of each value: {food}")
    deck = [0] * NUM_TYPES
    for t in state.animal_deck:
        deck[t] += 1
    if deck != state.animals_left:
        raise SnapshotError("animals_left does not match the animal deck")
    animals = deck[:]
    if state.animal >= 0:
        animals[state.animal] += 1
    for s in range(n):
        for t in range(NUM_TYPES):
            animals[t] += state.savanna[s][t] + state.graveyard[s][t]
    for t in range(NUM_TYPES):
        animals[t] += state.eaten[t]
    if tuple(animals) != ANIMAL_COUNTS:
        raise SnapshotError(f"animals do not add up to 30 boars, 4 hyenas, 4 lions: {animals}")


def make_state(
    game: BoaringGame,
    hands: list[list[int]],
    animal: int | str,
    requirement: int,
    active: int = 0,
    savanna: list[list[int]] | None = None,
    graveyard: list[list[int]] | None = None,
    animal_deck: list[int] | None = None,
    eaten: list[int] | None = None,
    discard: list[int] | None = None,
    food_pile: list[int] | None = None,
) -> BoaringState:
    """A hand-made position at the start of a bid (for tests, puzzles and examples).

    ``hands``: per seat the food values held; ``animal``: type id or name of the turned animal;
    ``requirement``: the turned food card; ``savanna`` / ``graveyard``: per seat counts (boar, hyena, lion).
    Unless given, the animal deck holds every animal not placed elsewhere (top = last: boars first, so the
    lions come up next), ``eaten`` whatever the deck does not, ``discard`` is empty and the food pile holds
    every remaining food card (top = last, in ascending value order). Raises SnapshotError if the cards or
    animals do not add up.
    """
    n = game.num_players
    state = game.blank_state()
    state.hands = [count_food(list(h)) for h in hands]
    state.hand_size = [len(h) for h in hands]
    state.animal = ANIMAL_NAMES.index(animal) if isinstance(animal, str) else int(animal)
    state.requirement = int(requirement)
    state.active = state.current = int(active)
    state.savanna = [list(r) for r in savanna] if savanna else [[0] * NUM_TYPES for _ in range(n)]
    state.graveyard = [list(r) for r in graveyard] if graveyard else [[0] * NUM_TYPES for _ in range(n)]
    state.discard = list(discard) if discard else [0] * NUM_VALUES
    placed = [0] * NUM_TYPES
    placed[state.animal] += 1
    for s in range(n):
        for t in range(NUM_TYPES):
            placed[t] += state.savanna[s][t] + state.graveyard[s][t]
    rest = [ANIMAL_COUNTS[t] - placed[t] for t in range(NUM_TYPES)]
    if animal_deck is None:
        if eaten is not None:
            rest = [rest[t] - eaten[t] for t in range(NUM_TYPES)]
        animal_deck = [t for t in range(NUM_TYPES) for _ in range(max(rest[t], 0))]
    state.animal_deck = list(animal_deck)
    state.animals_left = [state.animal_deck.count(t) for t in range(NUM_TYPES)]
    state.eaten = list(eaten) if eaten is not None else [rest[t] - state.animals_left[t] for t in range(3)]
    if food_pile is None:
        used = [sum(state.hands[s][i] for s in range(n)) + state.discard[i] for i in range(NUM_VALUES)]
        used[state.requirement - 1] += 1
        food_pile = expand_food([max(COPIES_PER_VALUE - u, 0) for u in used])
    state.food_pile = list(food_pile)
    check_consistent(game, state)
    return state


__all__ = ["BoaringGame", "BoaringState", "BID", "EAT", "OVER", "UNKNOWN", "ANIMAL_COUNTS"]
