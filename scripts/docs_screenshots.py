"""Regenerate the screenshots of inspect view in docs/ (one review per kind and the list of their
logs), from a neutral folder.

    python scripts/docs_screenshots.py              # docs/inspect-view-{ds,design,code,impact,log-list}.png
    python scripts/docs_screenshots.py --out /tmp/shots --tab messages

Each kind reviews one input the way a user does (by task name, from a folder outside the
project, `--model offline/rules`): the DS review a write-up that quotes dollar amounts, the
design review a design against its requirements, the code review a change in a git repository
against its task spec, the impact review an impact_results.json. Each log is opened in
`inspect view` in headless Chromium on its sample's SCORING tab (`--tab`), which shows the
verdict line in the sample header and the whole review rendered below it (the tab the terminal's
link opens); then the viewer's list of the four logs, each with its verdict as its SCORE. Needs
`chromium`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
BIN = Path(sys.executable).parent
SHOT = ROOT / "scripts" / "inspect_view_screenshot.py"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=docs@example.com", "-c", "user.name=docs", *args],
                   check=True, capture_output=True)


def inputs(folder: Path) -> dict[str, list[str]]:
    """Each kind's `-T` arguments, with its input copied into `folder` (a git repository)."""
    case = FIXTURES / "code" / "unclosed-mutable"
    names = [p.name for p in (case / "base").iterdir()]
    shutil.copytree(case / "base", folder, dirs_exist_ok=True)
    git(folder, "init", "-q")
    git(folder, "add", *names)
    git(folder, "commit", "-qm", "base")
    for name in names:
        shutil.rmtree(folder / name)
    shutil.copytree(case / "head", folder, dirs_exist_ok=True)
    git(folder, "add", "-A", *names)
    git(folder, "commit", "-qm", "the change")
    shutil.copy(case / "spec.md", folder / "SPEC.md")
    shutil.copy(FIXTURES / "ds" / "checkout-button-early-stop.md", folder / "checkout-test.md")
    for name in ("design.md", "requirements.md"):
        shutil.copy(FIXTURES / "design" / "api-rate-limiter" / name, folder / name)
    shutil.copy(FIXTURES / "impact" / "ci-excludes-estimate.json", folder / "impact_results.json")
    return {
        "ds": ["-T", "document=checkout-test.md"],
        "design": ["-T", "design=design.md", "-T", "requirements=requirements.md"],
        "code": ["-T", "repo=.", "-T", "base=HEAD~1", "-T", "head=HEAD", "-T", "spec=SPEC.md"],
        "impact": ["-T", "artifact=impact_results.json"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs"), help="folder of the PNGs (default: docs/)")
    parser.add_argument("--tab", default="scoring", help="the sample tab to show (default: scoring)")
    parser.add_argument("--kinds", default="ds,design,code,impact", help="which kinds (default: all four)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="review-harness-docs-") as tmp:
        folder = Path(tmp) / "my-project"
        folder.mkdir()
        arguments = inputs(folder)
        logs = folder / "logs"
        for kind in args.kinds.split(","):
            before = set(logs.glob("*.eval"))
            subprocess.run([str(BIN / "inspect"), "eval", f"review_harness/{kind}_review", *arguments[kind],
                            "--model", "offline/rules", "--display", "none"],
                           cwd=folder, env={**os.environ, "PWD": str(folder)}, check=True)
            [log] = set(logs.glob("*.eval")) - before
            shoot(log, out / f"inspect-view-{kind}.png", "--tab", args.tab)
        shoot(logs, out / "inspect-view-log-list.png", "--log-list")
    return 0


def shoot(log: Path, png: Path, *options: str) -> None:
    subprocess.run([sys.executable, str(SHOT), str(log), str(png), *options], check=True)
    png.with_name(png.name + ".txt").unlink(missing_ok=True)
    print(f"wrote {png}")


if __name__ == "__main__":
    sys.exit(main())
