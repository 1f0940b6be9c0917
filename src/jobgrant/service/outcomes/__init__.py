"""Outcomes and accountability: the KPIs computed by SQL over the records, their suppression,
the annual report to Ottawa and the open data. Above `grants` in the
layers: it reads the files, claims, payments and outcomes; nothing below it imports it."""
