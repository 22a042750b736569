"""Independent readings of the rules (RULES.md), written apart from the engines, as test oracles."""
