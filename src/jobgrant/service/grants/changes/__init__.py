"""Change requests to an accepted agreement, and their kinds."""
