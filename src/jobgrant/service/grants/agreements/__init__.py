"""The agreement: offered, accepted, amended; its document in HTML and PDF."""
