"""Measurements and offline experiments: scripts run by hand (``python -m training.measure.NAME``) to measure a
design choice or try a training target outside the two learners. Two are ``barnyard`` commands as well
(``exploit``, ``bench train``: :data:`training.cli.COMMANDS`); the numbers are recorded in ``checkpoints/README.md``
and the docs.

* ``exploit`` - ``barnyard exploit``: a fresh PPO learner trained against a frozen policy, then a seeded match
  against it: the policy's approximate exploitability;
* ``exploit_table`` - ``exploit`` against every shipped checkpoint, ``greedy`` and ``search``, as a markdown table;
* ``train_speed`` - ``barnyard bench train``: training speed per game;

* ``shaping_gap`` - how far the trainer's score shaping is from exact potential-based shaping (PPO's collector);
* ``benchmark_search`` - where search-guided self-play spends its time (AlphaZero's self-play);
* ``ranking_agreement`` - how often a reference's move is among a checkpoint's K most likely, and the ceiling of a
  root cut (the K of ``guided:``);
* ``value_fit`` - how well a network fits Bestiarium's value from each encoding (a supervised fit);
* ``mc_distill`` - Bestiarium's network fitted to flat Monte Carlo action values; a supervised fit that writes a
  checkpoint (``"algo": "mc_distill"``) loadable like any other;
* ``move_regret`` - how much each player's Bestiarium move gains over a random one, scored by flat Monte Carlo
  action values from two independent value maps;
* ``search_speed`` - seconds per move of a game's ``search`` baseline, compiled and on ``rules.py``;
* ``canvas_stats`` - whether Battle Sheep's canvas edge ever binds in random builds (RULES.md, "Canvas size");
* ``stuck_search`` - adversarial search for Battle Sheep builds that get stuck, per canvas radius (the smallest
  accepted canvases);
* ``web_load`` - the web app's memory and ``GET /`` latency under a bounded hostile load, from outside (the app
  runs in a child process on 127.0.0.1).

May import: the shared top-level modules, :mod:`training.run`, :mod:`training.ppo`, :mod:`training.alphazero`,
:mod:`training.arena` and the ``train`` command (:mod:`training.train_cli`). It does not import
:mod:`training.play`, and nothing imports it.
"""
