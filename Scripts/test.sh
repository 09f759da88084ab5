#!/usr/bin/env bash
# The project's test command: every suite, including the httpbin conformance suite.
#
#   Scripts/test.sh [extra swift test arguments]
#
# Builds with warnings as errors (the project's standard) and runs `swift test` with httpbin
# started by Scripts/with-httpbin.sh. Needs only the Swift toolchain and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
exec Scripts/with-httpbin.sh swift test -Xswiftc -warnings-as-errors "$@"
