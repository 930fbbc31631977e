"""The lab: hand-run experiments, kept apart from the product. Each module is a script run from a checkout's root
(``python -m lab.NAME --help``) to measure a design choice or try a training target outside the two learners; the
numbers are recorded in ``checkpoints/README.md``, the docs and the rules pages. ``lab/`` is not installed (the
wheel holds ``envs`` and ``training`` only, pyproject.toml), it is linted like the packages, and its tests run with
the suite. What backs a ``barnyard`` command stays in ``training.measure`` (``exploit``, ``bench train``).

* ``exploit_table`` - ``barnyard exploit`` against every shipped checkpoint, ``greedy`` and ``search``, as a
  markdown table;
* ``shaping_gap`` - how far the trainer's score shaping is from exact potential-based shaping (PPO's collector);
* ``benchmark_search`` - where search-guided self-play spends its time (AlphaZero's self-play);
* ``ranking_agreement`` - how often a reference's move is among a checkpoint's K most likely, and the ceiling of a
  root cut (the K of ``guided:``);
* ``value_fit`` - how well a network fits Bestiarium's value from each encoding (a supervised fit);
* ``mc_distill`` - Bestiarium's network fitted to flat Monte Carlo action values; a supervised fit that writes a
  checkpoint (``"algo": "mc_distill"``) loadable like any other;
* ``move_regret`` - how much each player's Bestiarium move gains over a random one, scored by flat Monte Carlo
  action values from two independent value maps;
* ``playout_fit`` - Bestiarium's learned playout (``search_playout``'s weights) fitted to a stronger player's moves;
* ``greedy_losses`` - why Bestiarium's greedy loses to random: what decided the games it lost;
* ``search_speed`` - seconds per move of a game's ``search`` baseline, compiled and on ``rules.py``;
* ``canvas_stats`` - whether Battle Sheep's canvas edge ever binds in random builds (RULES.md, "Canvas size");
* ``stuck_search`` - adversarial search for Battle Sheep builds that get stuck, per canvas radius (the smallest
  accepted canvases);
* ``web_load`` - the web app's memory and ``GET /`` latency under a bounded hostile load, from outside (the app
  runs in a child process on 127.0.0.1).

May import: ``envs`` and ``training`` (any of it). Nothing in ``envs`` or ``training`` imports the lab.
"""
