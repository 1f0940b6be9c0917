"""The analyst's simulation runs: requested on the web page, run by `jobgrant worker`."""
