"""The Django service (accounts, registry, grants, ledger, audit, api, web); docs/architecture.md
maps them."""
