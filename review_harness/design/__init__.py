"""The design review (seed 004): personas reviewing a design against its requirements,
a synthesizer grouping their findings, and the verdict, artifacts and triage."""
