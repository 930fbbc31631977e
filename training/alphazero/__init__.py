"""AlphaZero: search-guided self-play (Gumbel AlphaZero or PUCT) and the search-based players of a checkpoint.

* ``search`` - the batched network-guided tree search and its policy-improvement maths; the search over a
  checkpoint as a player (``mcts:PATH:N``);
* ``selfplay`` - the self-play games, the replay buffer, the loss and the training loop,
  :func:`training.alphazero.selfplay.train`: config -> policy checkpoint;
* ``guided`` - network-pruned search: the game's compiled ``search`` baseline over a checkpoint's most likely
  moves (``guided:PATH[:K[:N]]``).

May import: the shared top-level modules, :mod:`training.run` and :mod:`training.scale` (the self-play servers
as Ray actors, with ``--ray``). The arena imports only its players (``search``
and ``guided``); the ``train`` command (:mod:`training.train_cli`), :mod:`training.measure` and the lab (``lab/``,
not installed) may import it all.
"""
