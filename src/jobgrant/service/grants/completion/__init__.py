"""The completion report and the follow-ups at 3 and 12 months, with their question sets."""
