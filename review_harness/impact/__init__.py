"""Review of causal-impact measurement results (seed 003): the artifact envelope and the
Measure -> Evaluate contract, deterministic consistency checks, the per-model-type confidence,
a template registry, a static knowledge base, the answer parser and the review engine."""
