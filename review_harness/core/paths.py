"""Where the project's data lives: prompts/<kind>/, fixtures/<kind>/, gold/<kind>/."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
PROMPTS_DIR = PROJECT_ROOT / "prompts"
FIXTURES_DIR = PROJECT_ROOT / "fixtures"
GOLD_DIR = PROJECT_ROOT / "gold"
BASELINES_DIR = PROJECT_ROOT / "logs" / "baselines"
