"""PPO self-play: the learner that trains a network on its own games by proximal policy optimisation.

* ``collect`` - the rollouts: groups of envs on the reference or the batched engine, in worker processes or not;
  per-seat credit assignment, score shaping, the opponent mix (the learner, past snapshots, scripted opponents);
* ``buffer`` - transitions in per-seat streams, bit-packed masks, the batch an update trains on;
* ``maths`` - GAE, the clipped loss, one update;
* ``loop`` - :func:`training.ppo.loop.train`: config -> policy checkpoint.

May import: the shared top-level modules and :mod:`training.run`. Only the ``train`` command
(:mod:`training.train_cli`) and :mod:`training.measure` import this package.
"""
