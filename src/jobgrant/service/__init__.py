"""The Django service (accounts, registry, grants, ledger, audit, api, web): see issue 4."""
