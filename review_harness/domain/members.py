"""The domain kind's members: each model call is tagged with one of these names, and the kind's
declaration (kind.py) routes the offline answer by it. A module of its own, importing nothing, so
the members' modules and the declaration can all use the names without importing each other."""

EXPERT = "domain-expert-reviewer"
DEDUP = "dedup"
CURATOR = "curator"
SYNTHESIS = "synthesis"
