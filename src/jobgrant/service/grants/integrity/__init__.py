"""Integrity: risk flags on a file, worked out from what jobgrant holds, shown to the officer,
never an automatic refusal (docs/adr/0044-risk-flags.md)."""
