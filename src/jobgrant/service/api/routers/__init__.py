"""One router per resource; api/api.py mounts them."""
