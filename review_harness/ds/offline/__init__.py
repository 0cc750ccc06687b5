"""The offline rule engine of the DS review: one detector per rubric issue type."""
