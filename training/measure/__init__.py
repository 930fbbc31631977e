"""What backs a ``barnyard`` command among the measurements (:data:`training.cli.COMMANDS`); the numbers are
recorded in ``checkpoints/README.md`` and the docs.

* ``exploit`` - ``barnyard exploit``: a fresh PPO learner trained against a frozen policy, then a seeded match
  against it: the policy's approximate exploitability;
* ``train_speed`` - ``barnyard bench train``: training speed per game.

The hand-run experiments (``exploit_table``, ``shaping_gap``, ``value_fit``, ``search_speed``, ...) are not part
of the installed package: they live in the checkout's ``lab/`` (``python -m lab.NAME``; ``lab/__init__.py``
lists them).

May import: the shared top-level modules, :mod:`training.run`, :mod:`training.ppo`, :mod:`training.alphazero`,
:mod:`training.arena` and the ``train`` command (:mod:`training.train_cli`). It does not import
:mod:`training.play`, and nothing in the package imports it.
"""
