"""The arena: policies by name, tournaments between them, and the records of their games.

* ``players`` - :func:`training.arena.players.make_policy`: a policy from a spec (a baseline, a checkpoint,
  ``sym:``, ``mcts:``, ``guided:``, ``llm:``), also the ``barnyard.policy_specs`` entry point that ``envs`` resolves
  checkpoint specs through;
* ``harness`` - what the harness honours besides ``act``: a policy's :class:`~training.arena.harness.Forfeit` and
  its transcripts;
* ``llm`` - the ``llm:`` policy: a language model behind an OpenAI-compatible chat endpoint, its illegal-move rule
  and its transcripts (docs/llm.md);
* ``tournament`` - fair seating and seeds, one game (``play_game``), win shares with Wilson intervals,
  Bradley-Terry ratings, the JSON result and its heat map (``barnyard evaluate``);
* ``records`` - game records as JSON, exact replay, GIFs (``barnyard replay``).

May import: the shared top-level modules and, from :mod:`training.alphazero`, only its players
(:mod:`training.alphazero.search`, :mod:`training.alphazero.guided`). It never imports a training loop
(:mod:`training.ppo`, :mod:`training.alphazero.selfplay`, :mod:`training.run`).
"""
