"""Claims: the employer's figures and receipts, the officer's assessment, the ledger movements."""
