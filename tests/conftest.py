"""Tests build tasks outside `inspect eval`, where no .env is read: default to the offline
reviewer as the project's .env does (a test that needs no model unsets it)."""

import os

os.environ.setdefault("INSPECT_EVAL_MODEL", "offline/rules")
