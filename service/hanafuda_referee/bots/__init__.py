"""Built-in bots for both games (PLAY.md, "Built-in bots")."""

from hanafuda_referee.bots.budget import Budget
from hanafuda_referee.bots.levels import Level, decide

__all__ = ["Budget", "Level", "decide"]
