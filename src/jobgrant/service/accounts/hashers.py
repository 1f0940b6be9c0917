from django.contrib.auth.hashers import Argon2PasswordHasher


class QuickArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2 at minimal cost: for the test environment only (see settings)."""

    time_cost = 1
    memory_cost = 8
    parallelism = 1
