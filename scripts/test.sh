#!/usr/bin/env bash
# The README's test command: set-up, a warnings-as-errors build, the tests, and a benchmark smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift build --build-tests -Xswiftc -warnings-as-errors
python3 scripts/validate_corpus.py | tail -n 1
swift run LogBenchmark --smoke
swift run IngestBenchmark --smoke
swift test
