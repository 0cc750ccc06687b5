"""Code review: a quote that is not verbatim in the change or spec is kept and named unverified."""

from review_harness.code.models import CATEGORIES, CodeFinding, ReviewerAnswer
from review_harness.code.parse import unverified_quotes

CATEGORY = CATEGORIES[0]


def finding(quote):
    return CodeFinding(severity="Important", category=CATEGORY, file="app/db.py", line=12,
                       description="d", suggested_fix=None, quote=quote)


def test_unverified_quotes_are_named_and_verbatim_ones_pass():
    report = ReviewerAnswer(findings=[finding("cursor.execute(f\"SELECT *   FROM t WHERE id={x}\")"),
                                      finding("os.system(cmd)"), finding(None)],
                            checked_fine=[], summary="")
    change = 'def get(x):\n    cursor.execute(f"SELECT * FROM t WHERE id={x}")\n'
    assert unverified_quotes(report, change) == [
        "finding 2 (app/db.py:12): quote not found verbatim in the change or spec; kept as unverified"
    ]
