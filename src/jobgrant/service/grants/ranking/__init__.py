"""Ranking a closed intake, and the decisions taken against its ranking (overrides)."""
