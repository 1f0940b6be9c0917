"""Payment batches, holds, the export to the paying system, its confirmation, recovery."""
