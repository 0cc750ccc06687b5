#!/usr/bin/env bash
# What a new user does on a fresh machine: clone the repository into an empty temporary folder
# (nothing beside it: no ../shared with the real documents), make a virtual environment, run the
# README's set-up line and its test line. Passes when both do; prints how many real-input tests
# and gold cases were left out because their documents are absent.
#
#   scripts/fresh_clone_check.sh [REPOSITORY] [-- PYTEST ARGUMENTS]
#
# REPOSITORY: what to clone (default: this checkout; its committed HEAD, not uncommitted edits).
# Arguments after `--` replace none of the README's test line: they are added to it.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
source_repo="$here"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then source_repo=$1; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi

python=${PYTHON:-python3}
work="$(mktemp -d "${TMPDIR:-/tmp}/fresh-clone.XXXXXX")"
trap 'rm -rf "$work"' EXIT
clone="$work/review-harness"

git clone --quiet "$source_repo" "$clone"
cd "$clone"
# nothing beside the clone, and no pointer elsewhere: the shared inputs are absent
unset REVIEW_HARNESS_SHARED REVIEW_HARNESS_REQUIRE_SHARED REVIEW_HARNESS_GOLD_LOGS PYTHONPATH
[ ! -e "$work/shared" ] || { echo "fresh clone check: $work/shared exists; the check needs nothing beside the clone" >&2; exit 2; }

# the README's lines, read from the README itself so the check follows it: the Install section's
# block, then the Test section's block, whose last line is the test line
block() { sed -n "/^## $1/,/^## /p" README.md | sed -n '/^```bash$/,/^```$/p' | grep -v '^```' | grep -v '^#' || true; }
setup=$(block Install; block Test | sed '$d')
test_line=$(block Test | tail -1)
[ -n "$setup" ] && [ -n "$test_line" ] || { echo "fresh clone check: README.md has no set-up or test line" >&2; exit 2; }

echo "fresh clone check: $clone (cloned from $source_repo at $(git rev-parse --short HEAD))"
start=$SECONDS
# the README creates .venv with python3; PYTHON picks another interpreter. One chain: a line that
# fails stops it (set -e does not hold inside an `||` list)
chain=""
while IFS= read -r line; do
  if [ -n "$line" ]; then chain="${chain:+$chain && }$line"; fi
done <<<"$setup"
echo "\$ $chain"
eval "${chain//python3 -m venv/$python -m venv}" >"$work/setup.log" 2>&1 || { tail -30 "$work/setup.log"; echo "fresh clone check: the set-up lines failed" >&2; exit 1; }
echo "set-up: $((SECONDS - start)) s"

echo "\$ $test_line $*"
start=$SECONDS
set +e
# shellcheck disable=SC2086
$test_line "$@" 2>"$work/stderr.log" | tee "$work/pytest.log"
status=${PIPESTATUS[0]}
set -e
echo "tests: $((SECONDS - start)) s, exit $status"
grep -h "left out" "$work/stderr.log" | sort -u || true
grep -h "^real-input tests left out" "$work/pytest.log" >/dev/null || { echo "fresh clone check: pytest printed no left-out count" >&2; exit 1; }
exit "$status"
