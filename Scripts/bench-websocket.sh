#!/usr/bin/env bash
# WebSocket echo, Osprey next to Python's `websockets` client, against the same `websockets` echo
# server on loopback (the tests' server, Tests/OspreyTests/WebSocket/websocket_server.py):
# 10,000 round trips of a small message, and 256 MiB in 64 KiB messages.
#
#   Scripts/bench-websocket.sh [--quick]
#
# Uses the venv Scripts/with-httpbin.sh makes (it pins `websockets`).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product osprey-bench -Xswiftc -warnings-as-errors >/dev/null
bench="$(swift build -c release --show-bin-path)/osprey-bench"
quick="${1:-}"
Scripts/with-httpbin.sh bash -s "$bench" "$quick" <<'SCRIPT'
set -euo pipefail
bench="$1"; quick="${2:-}"
log="$(mktemp)"
"$OSPREY_PYTHON" Tests/OspreyTests/WebSocket/websocket_server.py 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
until grep -q PORT "$log"; do sleep 0.1; done
port="$(sed -n 's/^PORT \([0-9]*\).*/\1/p' "$log" | head -1)"
url="ws://127.0.0.1:$port/echo"
"$bench" --only websocket --websocket "$url" $quick
round_trips=10000; bytes=$((256 << 20))
if [ "$quick" = "--quick" ]; then round_trips=100; bytes=$((4 << 20)); fi
"$OSPREY_PYTHON" - "$url" "$round_trips" "$bytes" <<'PYTHON'
import asyncio, resource, sys, time
from websockets.asyncio.client import connect

url, round_trips, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def rss():
    with open("/proc/self/status") as status:
        return {line.split(":")[0]: int(line.split()[1]) * 1024 for line in status if line.startswith(("VmRSS", "VmHWM"))}

async def main():
    async with connect(url, compression=None, max_size=None) as socket:
        started = time.perf_counter()
        for index in range(round_trips):
            text = f"message {index}"
            await socket.send(text)
            assert await socket.recv() == text
        small = time.perf_counter() - started
    async with connect(url, compression=None, max_size=None) as socket:
        baseline = rss()["VmRSS"]
        size = 64 << 10
        count = total // size
        async def send():
            for index in range(count):
                await socket.send(bytes([index % 256]) * size)
        started = time.perf_counter()
        sender = asyncio.create_task(send())
        for index in range(count):
            message = await socket.recv()
            assert len(message) == size and message[0] == index % 256
        await sender
        large = time.perf_counter() - started
        peak = rss()["VmHWM"]
    print(f"  websockets client: echo {round_trips} small messages {small:.2f} s, {round_trips / small:.0f} messages/s; "
          f"{total >> 20} MiB {large:.2f} s, {(total >> 20) / large:.0f} MiB/s; peak RSS {(peak - baseline) / 1048576:.1f} MiB over the baseline")

asyncio.run(main())
PYTHON
SCRIPT
