"""A small OpenFisca country package of the Canada Job Grant's shares and caps, for the benchmark.

Written for bench/simulate.py, which runs it in its own virtual environment (openfisca-core from
PyPI, never a dependency of jobgrant) against the same synthetic trainees as `evaluate`. It
encodes what the comparison needs and no more: the 2013 split (a third each for Ottawa, the
province and the employer, $5,000 caps) and the 2014 split (two thirds federal up to $10,000, no
provincial share) as dated parameters, and Quebec's separate agreement (no grant from
2014-03-04). Amounts are integer cents and rates integer fractions, so that its shares are
exact to the cent as jobgrant's are. It computes the shares only: no eligibility, no in-kind
wages, no unemployed-hire rule (the benchmark's trainees need none of them).
"""

from __future__ import annotations

from pathlib import Path

from openfisca_core.taxbenefitsystems import TaxBenefitSystem

from openfisca_cjg.entities import entities
from openfisca_cjg.variables import variables


class CountryTaxBenefitSystem(TaxBenefitSystem):  # type: ignore[misc]
    """Entities, variables and parameters, as an OpenFisca country package declares them."""

    def __init__(self) -> None:
        super().__init__(entities)
        self.add_variables(*variables)
        self.load_parameters(str(Path(__file__).parent / "parameters"))
