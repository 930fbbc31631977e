"""PPO self-play: the learner that trains a network on its own games by proximal policy optimisation.

Read in this order:

* ``loop`` - :func:`training.ppo.loop.train`: config -> policy checkpoint (collect, GAE, update, snapshot, log);
* ``collect`` - the rollouts: steps the env groups, answers the network seats, credits every decision;
* ``credit`` - per-seat credit assignment, score shaping and the bootstraps at cut games, over whole arrays;
* ``buffer`` - complete transitions in preallocated arrays, bit-packed masks, the batch an update trains on;
* ``maths`` - GAE, the clipped loss, one update;
* ``mix`` - who sits in each seat: the opponent mix (the learner, past snapshots, scripted opponents);
* ``slots`` / ``batched_slots`` - a group of envs on the reference engine (``rules.py``) or on the batched one,
  playing its scripted seats and reporting the network seats' decisions;
* ``envworkers`` - the groups in this process or in worker processes, and the network seats' forward passes.

May import: the shared top-level modules, :mod:`training.run` and :mod:`training.scale` (the env groups as Ray
actors, with ``--ray``). Only the ``train`` command
(:mod:`training.train_cli`), :mod:`training.measure` and the lab (``lab/``, not installed) import this package.
"""
