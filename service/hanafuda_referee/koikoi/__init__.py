"""The Koi-Koi engine (RULES.md Part 1): pure, a state plus a move gives a new state plus events.

- :mod:`.rules`: ``KoiKoiRules``, every variant as an option, and the presets;
- :mod:`.game`: ``new_game``, ``legal_moves``, ``apply`` on immutable ``KoiKoiState`` values;
- :mod:`.scoring`: yaku and their points, and the score of a stop;
- :mod:`.events`, :mod:`.view` (what one seat may see) and :mod:`.codec` (states and events as
  bytes);
- :mod:`.rollout`: a round played to its end on bit masks only, for bots and simulations.

May import: the core modules (``cards``, ``capture``, ``dealing``, ``moves``, ``errors``, ...)
and the standard library's pure parts. No store, message, transport, clock or global random
state (the ``import-linter`` contracts in pyproject.toml). The rules as implemented:
``docs/koikoi.md``.
"""
