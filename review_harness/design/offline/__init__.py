"""The offline design reviewer: a rule engine per persona and the responder that answers the
design review's prompts with it.

Where to look:

* ``responder``: parses a persona's or the synthesizer's prompt and answers it;
* ``engine``: ``review_as_persona`` runs one persona's detectors and ranks what they found;
* ``registry``: the ``@detector`` registry, the finding table (prompts/design/offline_rules.yaml)
  and ``Ctx``, what every detector reads and reports into;
* ``document``, ``vocabulary``, ``requirements``, ``quantities``: how the documents are read
  (sections and quotes; word patterns from prompts/design/offline_vocabulary.yaml, stems, ids and
  figures; requirement items and priorities; durations and rates);
* ``scope``, ``conflicts``, ``shared_checks``: answers several personas use;
* one module per persona with its detectors (``requirement_auditor``, ``edge_case_prober``,
  ``assumption_hunter``, ``feasibility_skeptic``, ``first_principles``, ``prior_art_scout``,
  ``product_strategist``, ``systems_architect``, ``code_realist``).

Which persona runs which detectors, and what they cannot see, is prompts/design/personas.yaml.
"""
