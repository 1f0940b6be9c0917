"""The same draws on a Dask distributed cluster (a LocalCluster): the same figures."""

from __future__ import annotations

import numpy as np
from distributed import LocalCluster
from tests.simulation.conftest import FINAL_DEAL

from jobgrant.simulation.montecarlo import RunSpec, run


def test_a_cluster_gives_exactly_the_figures_of_one_process() -> None:
    spec = RunSpec(str(FINAL_DEAL), ("2014-15", "2015-16"), 3, seed=8)
    local = run(spec)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        on_cluster = run(spec, cluster=cluster.scheduler_address)
    assert np.array_equal(local.figures, on_cluster.figures, equal_nan=True)
