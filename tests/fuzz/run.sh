#!/bin/sh
# Builds the experiment-parser fuzzer with clang-14 (libFuzzer, ASan, UBSan) into
# build-fuzz/ at the repository root and runs it for SECONDS (default 60) on the seed corpus.
# Exit status: 0 = no crash; non-zero = libFuzzer found a crash (the input is saved in
# build-fuzz/artifacts/). Usage: tests/fuzz/run.sh [SECONDS] [JOBS]
set -eu
SECONDS_TO_RUN=${1:-60}
JOBS=${2:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${MHLA_FUZZ_BUILD:-$ROOT/build-fuzz}
CXX=${CXX_FUZZ:-clang++-14}
cmake -S "$HERE" -B "$BUILD" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target fuzz_experiment
mkdir -p "$BUILD/corpus" "$BUILD/artifacts"
# The working corpus grows in build-fuzz/corpus; the seeds in tests/fuzz/corpus stay as checked in.
"$BUILD/fuzz_experiment" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/" "$BUILD/corpus" "$HERE/corpus"
