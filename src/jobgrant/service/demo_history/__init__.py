"""Demonstration history for `make run`: a few fiscal years of finished files (applied for,
approved, claimed, paid, completed, followed up), drawn from a seed with the rates of
`jobgrant/data/demo-history.yaml` and walked through the service's own actions with the clock
moved to each day. `load.seed_history` loads it; `plan` draws it, `walk` orders its days, and
`steps`, `money` and `outcome_steps` call the actions."""
