"""The greedy rule's weights, in a module of their own: the greedy baseline (``baselines.py``) and the compiled
playouts of the search baseline (``fast.py``) both read them, and ``baselines`` imports ``fast``, so neither can
hold them without an import cycle."""

DENY = 0.5
"""Weight of the opponent's points that a placement denies."""
POTENTIAL = 0.25
"""Weight per empty neighbour (room for the group to grow)."""
PASS_BELOW = 0.6
"""The roller passes when the best placement value is at most this."""
PASS_BELOW_RESPONDER = 0.3
"""The responder passes when the best placement value is at most this."""
