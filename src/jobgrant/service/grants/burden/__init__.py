"""The burden meter: how long each step takes an employer, how often it is sent back, and the
field errors the forms show (ADR 0046)."""
