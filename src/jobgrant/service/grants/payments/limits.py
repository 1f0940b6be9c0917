"""The limits the payment actions share."""

#: ids per IN (...) list: inside SQLite's limit on bound parameters.
CHUNK = 1000
#: The longest reason for a hold, or note to an authorization, kept.
MAX_REASON = 2000
