"""What an operator reads of a running service: metrics (Prometheus), the request id that ties a
request's log lines, its outbox message, the worker's delivery and its audit entry together, and
the logs as JSON lines (docs/deployment.md)."""
