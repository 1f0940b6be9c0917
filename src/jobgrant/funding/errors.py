"""The one error the funding model raises for bad input: it lists every problem it found."""

from __future__ import annotations


class FundingError(ValueError):
    """Bad input to the funding model (scenario, policy, fiscal year, parameter); nothing ran."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems
