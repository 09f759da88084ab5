#!/usr/bin/env bash
# Runs a command with httpbin (from PyPI, under gunicorn) listening on 127.0.0.1.
#
#   Scripts/with-httpbin.sh swift test
#
# Installs the pinned packages into .build/httpbin-venv/ on first use, starts gunicorn on a free
# port, exports HTTPBIN_URL (http://127.0.0.1:PORT) to the command, and always stops the server
# by PID. It also exports OSPREY_HYPERCORN, the path of an HTTP/2 server (Hypercorn, from the
# same requirements) that the HTTP/2 tests start themselves, and OSPREY_PYTHON, the venv's python
# with the HAR checks' packages (jsonschema, haralyzer), and OSPREY_MITMDUMP, mitmproxy's mitmdump
# from a venv of its own (.build/mitmproxy-venv; its pins differ), whose HAR files the tests replay.
# Exits with the command's status.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${HTTPBIN_VENV:-$root/.build/httpbin-venv}"
requirements="$root/Scripts/httpbin-requirements.txt"

if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi

# Reinstall when the pinned requirements change.
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/gunicorn" ] || ! cmp -s "$requirements" "$stamp"; then
    echo "with-httpbin: installing httpbin into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
fi

mitm_venv="${MITMPROXY_VENV:-$root/.build/mitmproxy-venv}"
mitm_requirements="$root/Scripts/mitmproxy-requirements.txt"
if [ ! -x "$mitm_venv/bin/mitmdump" ] || ! cmp -s "$mitm_requirements" "$mitm_venv/.requirements"; then
    echo "with-httpbin: installing mitmproxy into $mitm_venv" >&2
    python3 -m venv "$mitm_venv"
    "$mitm_venv/bin/pip" install --quiet --disable-pip-version-check -r "$mitm_requirements"
    cp "$mitm_requirements" "$mitm_venv/.requirements"
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
log="$(mktemp -t httpbin.XXXXXX.log)"
# gthread workers so that /delay and /drip do not block other requests.
"$venv/bin/gunicorn" --bind "127.0.0.1:$port" --worker-class gthread --workers 2 --threads 8 \
    --log-level warning httpbin:app >"$log" 2>&1 &
server_pid=$!

stop_server() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    rm -f "$log"
}
trap stop_server EXIT

# Wait for the server to answer (bounded: 30 s).
for _ in $(seq 1 300); do
    if python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=1)" \
        "http://127.0.0.1:$port/get" >/dev/null 2>&1; then
        break
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "with-httpbin: gunicorn exited early:" >&2
        cat "$log" >&2
        exit 1
    fi
    sleep 0.1
done

export HTTPBIN_URL="http://127.0.0.1:$port"
export OSPREY_HYPERCORN="$venv/bin/hypercorn"
export OSPREY_PYTHON="$venv/bin/python"
export OSPREY_MITMDUMP="$mitm_venv/bin/mitmdump"
echo "with-httpbin: httpbin at $HTTPBIN_URL (pid $server_pid)" >&2
set +e
"$@"
status=$?
set -e
exit "$status"
