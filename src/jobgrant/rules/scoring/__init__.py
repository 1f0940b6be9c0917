"""Ranking an intake: criteria sets of dated, sourced points, scores with their reasons, the
order and the cut-off where the intake's budget runs out."""
