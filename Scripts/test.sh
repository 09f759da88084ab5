#!/usr/bin/env bash
# The project's test command: every suite, including the httpbin conformance suite.
#
#   Scripts/test.sh [extra swift test arguments]
#
# Runs `swift test` with httpbin started by Scripts/with-httpbin.sh. Needs only the Swift
# toolchain and python3 (httpbin comes from PyPI on first use).
#
# A plain run builds with the flags `swift run osprey-demo` uses, so it reuses that build. With
# OSPREY_STRICT=1, or when CI is set (as .ci/run does), it builds with warnings as errors, the
# project's standard: a build of its own, since the flag changes every module's build.
set -euo pipefail
cd "$(dirname "$0")/.."

strict=()
if [ "${OSPREY_STRICT:-}" = 1 ] || { [ -n "${CI:-}" ] && [ "${CI}" != false ]; }; then
    strict=(-Xswiftc -warnings-as-errors)
fi
exec Scripts/with-httpbin.sh swift test ${strict[@]+"${strict[@]}"} "$@"
