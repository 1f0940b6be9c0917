"""Parameter lookup for whole batches: one dense array per parameter over integer keys.

A key is (period, place, delivery): the period is the interval between two dates on which some
value changes under the policy, the place is a jurisdiction or an economic region, and the
delivery mode decides whether a provincial share exists. Each application's key is computed
with array arithmetic (`searchsorted` on dates), and parameters are read by indexing a dense
array with the keys. Python resolves parameters once per distinct key present in the batch,
never once per row; that is what keeps the kernel within a small factor of hand-written numpy.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from jobgrant.rules.batch import (
    DELIVERIES,
    I64,
    POLICY_DEFAULT_DELIVERY,
    Applications,
    region_codes,
)
from jobgrant.rules.codes import JURISDICTION_CODES, economic_regions
from jobgrant.rules.policies import Policy, PolicyLibrary, ResolvedValue


@dataclass(frozen=True)
class Key:
    period_start: dt.date
    jurisdiction: str
    region: str | None
    delivery: str


class ParameterTable:
    """A policy's parameters for every (period, place, delivery), resolved on demand."""

    def __init__(self, library: PolicyLibrary, policy: Policy) -> None:
        self.library = library
        self.policy = policy
        self.breakpoints = np.array(library.breakpoints(policy), dtype="datetime64[D]")
        self.regions = region_codes()
        self.n_places = len(JURISDICTION_CODES) + len(self.regions)
        self.n_keys = len(self.breakpoints) * self.n_places * len(DELIVERIES)
        self._resolved: dict[int, dict[str, ResolvedValue]] = {}
        # the policy's default delivery mode per (period, jurisdiction)
        default = [
            [DELIVERIES.index(policy.delivery_for(j, on)) for j in JURISDICTION_CODES]
            for on in self.breakpoints.astype(dt.date)
        ]
        self._default_delivery = np.array(default, dtype=np.int8).reshape(
            -1, len(JURISDICTION_CODES)
        )

    @property
    def start_date(self) -> dt.date:
        return self.library.start_date(self.policy)

    def periods(self, applications: Applications) -> I64:
        """Each application's period: the interval between value changes its date falls in.

        A date shared by every application (a broadcast view) is looked up once."""
        dates = applications.application_date
        shared = is_shared(dates)
        looked_up = dates[:1] if shared else dates
        period: I64 = np.searchsorted(self.breakpoints, looked_up, "right") - 1
        if shared:
            period = np.broadcast_to(period, dates.shape)
        if len(period) and period.min() < 0:
            raise ValueError(f"an application date is before the policy starts ({self.start_date})")
        return period

    def delivery(self, applications: Applications, period: I64) -> np.ndarray:
        """Each application's delivery code, with the policy's default where none was given."""
        n_jurisdictions = len(JURISDICTION_CODES)
        # indexes are in range: periods and jurisdictions are checked codes
        if is_shared(period):  # one period: its row of defaults, by jurisdiction
            row = self._default_delivery[int(period[0])]
            # indexes made intp first: np.take converts int8 ones several times slower
            jurisdiction = applications.jurisdiction.astype(np.intp)
            default = np.take(row, jurisdiction, mode="clip")
        else:
            default = np.take(
                self._default_delivery.ravel(),
                period * n_jurisdictions + applications.jurisdiction,
                mode="clip",
            )
        given = applications.delivery
        if all_equal(given, POLICY_DEFAULT_DELIVERY):
            return default
        return np.where(given == POLICY_DEFAULT_DELIVERY, default, given).astype(np.int8)

    def keys(self, applications: Applications, period: I64, delivery: np.ndarray) -> I64:
        """Each application's key, computed with array operations only."""
        no_region = all_equal(applications.region, -1) or bool((applications.region < 0).all())
        if no_region and is_shared(period):  # one period: a key per jurisdiction, looked up
            first = int(period[0]) * self.n_places * len(DELIVERIES)
            by_jurisdiction = first + np.arange(len(JURISDICTION_CODES)) * len(DELIVERIES)
            jurisdiction = applications.jurisdiction.astype(np.intp)  # see delivery
            shared: I64 = np.take(by_jurisdiction, jurisdiction, mode="clip")
            shared += delivery
            return shared
        keys: I64 = period * self.n_places
        if no_region:
            keys += applications.jurisdiction
        else:
            keys += np.where(
                applications.region >= 0,
                len(JURISDICTION_CODES) + applications.region.astype(np.int64),
                applications.jurisdiction.astype(np.int64),
            )
        keys *= len(DELIVERIES)
        keys += delivery
        return keys

    def decode(self, key: int) -> Key:
        place_key, delivery = divmod(key, len(DELIVERIES))
        period, place = divmod(place_key, self.n_places)
        if place < len(JURISDICTION_CODES):
            jurisdiction, region = JURISDICTION_CODES[place], None
        else:
            region = self.regions[place - len(JURISDICTION_CODES)]
            jurisdiction = economic_regions()[region].jurisdiction
        period_start = self.breakpoints[period].astype(dt.date)
        return Key(period_start, jurisdiction, region, DELIVERIES[delivery])

    def resolved(self, key: int) -> dict[str, ResolvedValue]:
        """Every parameter's value for one key (cached: the table is reused across batches)."""
        if key not in self._resolved:
            k = self.decode(key)
            self._resolved[key] = self.library.resolve(
                self.policy, k.jurisdiction, k.region, k.period_start
            )
        return self._resolved[key]

    def present(self, keys: I64) -> I64:
        """The distinct keys in `keys`, found with one counting pass (no sort)."""
        counts = np.bincount(keys, minlength=self.n_keys)
        present: I64 = np.flatnonzero(counts).astype(np.int64)
        return present


def is_shared(column: np.ndarray) -> bool:
    """Whether the column is one value for every row (a broadcast view: numpy's broadcast_to)."""
    return column.ndim == 1 and len(column) > 0 and column.strides == (0,)


def all_equal(column: np.ndarray, value: int) -> bool:
    """Whether every row holds `value`, at once for a shared column."""
    if is_shared(column):
        return bool(column[0] == value)
    return bool((column == value).all())


_TABLES: dict[tuple[int, str], ParameterTable] = {}


def table_for(library: PolicyLibrary, policy: Policy) -> ParameterTable:
    """The (cached) table of a library's policy."""
    cache_key = (id(library), policy.name)
    table = _TABLES.get(cache_key)
    if table is None or table.policy is not policy:
        table = ParameterTable(library, policy)
        _TABLES[cache_key] = table
    return table
