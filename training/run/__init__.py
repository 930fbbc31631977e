"""The pieces every training run is built from, whichever learner runs it (:mod:`training.ppo`,
:mod:`training.alphazero`):

* ``pieces`` - seeding, the torch device, the run directory, ``log.csv`` and TensorBoard, the progress bar, the
  periodic evaluation and how it is logged, saving ``policy.pt``;
* ``opponents`` - the scripted opponents (``random``, the game's ``greedy``) and the evaluation games of a network
  against them (:func:`training.run.opponents.play_against`).

May import: the shared top-level modules. The learners import it; it imports no learner.
"""
