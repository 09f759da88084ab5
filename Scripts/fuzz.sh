#!/usr/bin/env bash
# Fuzzes the parsers of bytes a server or a user controls, with libFuzzer and AddressSanitizer.
#
#   Scripts/fuzz.sh [SECONDS] [TARGET...]     (default: 60 seconds each, every target)
#
# Builds osprey-fuzz with coverage instrumentation (-sanitize-coverage) and AddressSanitizer in
# .build/fuzz, links libFuzzer's driver (libclang_rt.fuzzer_no_main, from the toolchain), and runs
# each target for SECONDS, starting from its seed corpus in Fuzz/Corpus/TARGET (new inputs go to
# .build/fuzz-corpus/TARGET, so the repository only keeps the seeds). Prints each target's
# executions per second and coverage; on a crash or a sanitizer report, keeps the input in
# .build/fuzz-artifacts/TARGET and exits non-zero. Replay a crash with any build:
#   swift run osprey-fuzz TARGET .build/fuzz-artifacts/TARGET/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(response-head content-disposition content-range multipart set-cookie macro event-stream cache-entry body-stream websocket chunked-body)
fi

swiftc_path="$(command -v swiftc)"
toolchain="$(cd "$(dirname "$(readlink -f "$swiftc_path")")/.." && pwd)"
fuzzer="$toolchain/lib/swift/clang/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a"
if [ ! -f "$fuzzer" ]; then
    echo "fuzz.sh: libFuzzer's driver is not in this toolchain ($fuzzer)" >&2
    exit 1
fi

echo "==> building osprey-fuzz with coverage and AddressSanitizer" >&2
# The output is shown only on failure: gold warns about every sanitizer helper it cannot export.
build_log="$(mktemp -t fuzz-build.XXXXXX)"
if ! swift build --product osprey-fuzz --scratch-path .build/fuzz -Xswiftc -warnings-as-errors \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
    -Xcc -fsanitize=address \
    -Xlinker --whole-archive -Xlinker "$fuzzer" -Xlinker --no-whole-archive -Xlinker -lstdc++ \
    >"$build_log" 2>&1; then
    grep -v "Cannot export local symbol" "$build_log" >&2
    rm -f "$build_log"
    exit 1
fi
rm -f "$build_log"
binary="$(swift build --product osprey-fuzz --scratch-path .build/fuzz --show-bin-path)/osprey-fuzz"

status=0
for target in "${targets[@]}"; do
    corpus=".build/fuzz-corpus/$target"
    artifacts=".build/fuzz-artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    log="$(mktemp -t fuzz-"$target".XXXXXX)"
    echo "==> $target: ${seconds} s" >&2
    set +e
    # Swift's own backtracer would run under the sanitizer after a crash: libFuzzer reports it.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}" "$binary" "$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$corpus" "Fuzz/Corpus/$target" >"$log" 2>&1
    code=$?
    set -e
    runs="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')"
    speed="$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')"
    coverage="$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || echo 'cov: ?')"
    echo "$target: $runs runs, $speed per second, $coverage, corpus $(find "$corpus" -type f | wc -l) inputs"
    if [ "$code" -ne 0 ]; then
        echo "fuzz.sh: $target failed (exit $code); inputs kept in $artifacts:" >&2
        grep -E 'ERROR|Fatal error|Precondition failed|SUMMARY|Test unit written' "$log" | head -20 >&2 || true
        status=1
    fi
    rm -f "$log"
done
exit "$status"
