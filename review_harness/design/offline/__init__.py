"""The offline design reviewer: a rule engine per persona and the responder that answers the
design review's prompts with it."""
