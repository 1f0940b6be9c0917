"""Programs, streams and intakes, managed by a program manager (or the administrator): a
stream's rules and selection, its intakes' windows and budgets, and their opening and closing
by the worker at their dates (ADR 0048)."""
