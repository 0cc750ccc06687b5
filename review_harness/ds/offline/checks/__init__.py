"""Issue detectors of the DS offline reviewer, one module per rubric lens, each detector registered
under the rubric issue type it reports (``registry.rule``). Which lens owns an issue type, and its
severity, come from the rubric; the module a detector lives in only keeps related checks together.

Detectors look at the ``DocView`` through ``ctx.features`` and return a ``Hit`` (or None). They
quote the document verbatim for evidence and write the issue in terms of what the document
actually says (the metric, the claim, the heading).
"""

from review_harness.ds.offline.checks import (  # noqa: F401  (importing a lens registers its detectors)
    analysis_completeness,
    analysis_logic,
    analysis_methodology,
    analysis_metrics,
    analysis_numbers,
    analysis_readings,
    communication_actionability,
    communication_audience,
    communication_conciseness,
    communication_structure,
)
