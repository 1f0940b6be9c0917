"""The trainee's costs (inputs, in cents) and the three shares of the grant (in cents).

Shares follow jobgrant's rule exactly: min(floor(cost x numerator / denominator), cap), the
employer paying the remainder; where the jurisdiction offers no grant, no government share.
OpenFisca's `int` variables are int32: a trainee's cost in cents fits, and the products are
taken in int64 before dividing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from openfisca_core.indexed_enums import Enum
from openfisca_core.periods import DateUnit
from openfisca_core.variables import Variable

from openfisca_cjg.entities import Trainee

# In jobgrant's index order (jobgrant.rules.codes.JURISDICTION_CODES), so its codes are ours.
JURISDICTIONS = ("NL", "PE", "NS", "NB", "QC", "ON", "MB", "SK", "AB", "BC", "YT", "NT", "NU")
Jurisdiction = Enum("Jurisdiction", [(code, code) for code in JURISDICTIONS])


class jurisdiction(Variable):  # type: ignore[misc]  # noqa: N801 (OpenFisca names variables so)
    value_type = Enum
    possible_values = Jurisdiction
    default_value = Jurisdiction.ON
    entity = Trainee
    definition_period = DateUnit.ETERNITY
    label = "Province or territory where the employer applies"


def _cost(name: str, label: str) -> type[Variable]:
    return type(
        name,
        (Variable,),
        {
            "value_type": int,
            "entity": Trainee,
            "definition_period": DateUnit.ETERNITY,
            "label": label,
            "unit": "cents",
        },
    )


tuition = _cost("tuition", "Tuition")
student_fees = _cost("student_fees", "Student fees")
materials = _cost("materials", "Textbooks, software and other materials")
exam_fees = _cost("exam_fees", "Examination fees")


class direct_cost(Variable):  # type: ignore[misc]  # noqa: N801
    value_type = int
    entity = Trainee
    definition_period = DateUnit.MONTH
    label = "Eligible training cost"
    unit = "cents"

    def formula(trainee: Any, period: Any, parameters: Any) -> Any:  # noqa: N805
        costs = ("tuition", "student_fees", "materials", "exam_fees")
        return sum(trainee(name, period).astype(np.int64) for name in costs)


def _government_share(trainee: Any, period: Any, parameters: Any, funder: str) -> Any:
    cjg = parameters(period).cjg
    rules = cjg[funder]
    cost = trainee("direct_cost", period).astype(np.int64)
    share = np.minimum(cost * rules.rate_numerator // rules.rate_denominator, rules.max_per_trainee)
    # Each jurisdiction's value looked up once, then indexed by the trainees' codes: indexing
    # the parameter node by the Enum column (`cjg.grant_available[jurisdiction]`) resolves each
    # row in Python, which took 4 s per 10^6 trainees; the benchmark is not meant to measure that.
    grant = np.array([bool(cjg.grant_available[code]) for code in JURISDICTIONS])
    codes = trainee("jurisdiction", period).view(np.ndarray)
    return np.where(grant[codes], share, 0)


class federal_share(Variable):  # type: ignore[misc]  # noqa: N801
    value_type = int
    entity = Trainee
    definition_period = DateUnit.MONTH
    label = "Federal share of the eligible cost"
    unit = "cents"

    def formula(trainee: Any, period: Any, parameters: Any) -> Any:  # noqa: N805
        return _government_share(trainee, period, parameters, "federal")


class provincial_share(Variable):  # type: ignore[misc]  # noqa: N801
    value_type = int
    entity = Trainee
    definition_period = DateUnit.MONTH
    label = "Provincial or territorial share of the eligible cost"
    unit = "cents"

    def formula(trainee: Any, period: Any, parameters: Any) -> Any:  # noqa: N805
        return _government_share(trainee, period, parameters, "provincial")


class employer_share(Variable):  # type: ignore[misc]  # noqa: N801
    value_type = int
    entity = Trainee
    definition_period = DateUnit.MONTH
    label = "Employer's share: the remainder"
    unit = "cents"

    def formula(trainee: Any, period: Any, parameters: Any) -> Any:  # noqa: N805
        cost = trainee("direct_cost", period)
        return cost - trainee("federal_share", period) - trainee("provincial_share", period)


variables = [
    jurisdiction,
    tuition,
    student_fees,
    materials,
    exam_fees,
    direct_cost,
    federal_share,
    provincial_share,
    employer_share,
]
