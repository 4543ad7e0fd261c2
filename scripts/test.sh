#!/usr/bin/env bash
# The README test command: set-up, format lint, a warnings-as-errors build, the schema corpus,
# benchmark smoke runs and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift format lint --strict -r Sources Tests Benchmarks Examples Package.swift
swift build --build-tests -Xswiftc -warnings-as-errors
python3 scripts/validate_corpus.py | tail -n 1
swift run LogBenchmark --smoke
swift run IngestBenchmark --smoke
swift run ProjectionBenchmark --smoke
swift run ImportBenchmark --smoke
swift run StoreBakeoff --smoke
swift test
