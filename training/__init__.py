"""Learning and playing the Barnyard games: two learners, a tournament arena, and play for people (imports
``envs``, never the reverse).

``barnyard train --game battle_sheep`` (or ``python -m training train``) trains; ``barnyard evaluate``, ``play``,
``replay`` and ``serve`` use the result; :func:`training.checkpoint.load_policy` turns a checkpoint into an
``envs.common.policies.Policy``.

One package per concern, each ``__init__`` saying what it holds and what it may import:

* :mod:`training.ppo` - PPO self-play (rollouts, buffer, maths, loop);
* :mod:`training.alphazero` - search-guided self-play (the search, self-play and its loop, network-pruned search);
* :mod:`training.run` - the pieces both learners' runs are built from (log, evaluation games, saving);
* :mod:`training.arena` - policies by name, tournaments, game records;
* :mod:`training.play` - play in the terminal and in the web app;
* :mod:`training.scale` - past one machine: ``--ray``'s actors, RLlib's multi-agent env and module (imports Ray);
* :mod:`training.measure` - what backs ``barnyard exploit`` and ``barnyard bench train`` (the hand-run experiments
  live outside the installed packages, in the checkout's ``lab/``).

Shared at the top, imported by the packages and importing none of them: ``config``, ``networks``, ``distribution``
(the masked distribution over legal actions), ``checkpoint``, ``loader`` (the bounded reader of a checkpoint's
files), ``shaping`` (score shaping's potential), ``specs`` (policy specs' arguments and their caps), ``charts``,
``stats``, ``workers``, ``cli_errors`` (the commands' one-line errors and their checks before any game). The
commands: ``cli`` (``barnyard``, ``python -m training``) and ``train_cli`` (``barnyard train``).
"""
