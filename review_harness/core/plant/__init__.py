"""Planted flaws: mutation testing for reviewers (`review-harness plant`).

Operators are data (`prompts/<kind>/plant.yaml`, see `model.py`); the engine (`engine.py`)
reads inputs through the kind's layout (`layouts.py`), plants each operator where it honestly
applies and writes a gold set (copies and gold files) the kind's task runs with
`-T fixtures=DIR`. Markdown documents are read with the core's markdown reader (`text.py`,
`docops.py`), JSON by field names (`jsonops.py`); a kind registers what it needs beyond that
(code: syntax-tree operators on a change).
"""

from review_harness.core.plant.engine import PlantReport, kind_table, plant
from review_harness.core.plant.model import OperatorTable, TableError
from review_harness.core.plant.mutators import register_mutator
from review_harness.core.plant.site import PlantError, PlantInput, Site

__all__ = ["OperatorTable", "PlantError", "PlantInput", "PlantReport", "Site", "TableError", "kind_table", "plant",
           "register_mutator"]
