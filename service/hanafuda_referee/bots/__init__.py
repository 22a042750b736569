"""Built-in bots for both games (PLAY.md, "Built-in bots"; ``docs/bots.md``).

:func:`decide` gives the move a bot of a :class:`Level` makes from a seat's engine view
(``koikoi.view.view(state, seat)`` or ``hachihachi.view.view(state, seat)``), never from a state:
a bot knows what its seat knows. It is pure: no clock (the ``expert``'s :class:`Budget` counts
play-outs, or reads a clock its caller gives it), no global random state, no I/O; the same view and
seed give the same move.

- :mod:`.levels`: :class:`Level` and :func:`decide`; :mod:`.budget`: :class:`Budget`;
- :mod:`.koikoi_greedy`, :mod:`.hachihachi_greedy` (one look ahead, over :mod:`.koikoi_values` and
  :mod:`.hachihachi_values`); :mod:`.koikoi_expert`, :mod:`.hachihachi_expert` (determinized Monte
  Carlo by :mod:`.search`, over ``koikoi.rollout`` and :mod:`.hachihachi_rollout`);
- :mod:`.proto_view`: a ``hanafuda.v1.GameView`` read back as the engine view;
- :mod:`.play`: the external bot command, which plays a seat of a hosted game over the API.

May import: the engines, the core modules and the generated messages; not the store, the hosting
layer, the writers or a transport (the ``import-linter`` contracts in pyproject.toml).

>>> from hanafuda_referee.koikoi.game import new_game
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> from hanafuda_referee.koikoi.view import view
>>> state, _ = new_game(KoiKoiRules(), seed=7, first_dealer=0)
>>> decide(view(state, 0), Level.GREEDY, seed=1) in view(state, 0).legal_moves
True
"""

from hanafuda_referee.bots.budget import Budget
from hanafuda_referee.bots.levels import Level, decide

__all__ = ["Budget", "Level", "decide"]
