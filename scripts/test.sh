#!/usr/bin/env bash
# The README test command: set-up, format lint, a warnings-as-errors build, the schema corpus,
# benchmark smoke runs, the embedding example, the tests, and the concurrency tests again under
# the thread sanitizer.
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
# The embedding example runs end to end: the feed gives the day it changed with the figures the
# follower held, and its support reader (a second engine) finds the rollup.
example=$(mktemp -d)
swift run SyncService "$example/data" > "$example/out"
grep -q '^feed: u1 steps 2026-07-14: known .*4200.* -> known .*3900' "$example/out" \
    && grep -q '^support: steps 2026-07-14: 3,900' "$example/out" || { cat "$example/out"; exit 1; }
rm -rf "$example"
swift test
# The tests of threads sharing a log or an engine, again under the thread sanitizer, which
# fails them on any data race (a build of its own, beside the main one).
swift test --sanitize=thread --scratch-path .build/tsan \
    --filter 'LogConcurrencyTests|WhileIngesting|closeWaitsForARunningIngest'
