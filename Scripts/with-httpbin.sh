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

# install VENV REQUIREMENTS PROGRAM NAME: makes the venv, or remakes it when the pinned
# requirements changed (the copy in VENV/.requirements is what it was made from).
install() {
    local target="$1" pins="$2" program="$3" name="$4"
    if [ ! -x "$target/bin/$program" ] || ! cmp -s "$pins" "$target/.requirements"; then
        echo "with-httpbin: installing $name into $target" >&2
        python3 -m venv "$target"
        "$target/bin/pip" install --quiet --disable-pip-version-check -r "$pins"
        cp "$pins" "$target/.requirements"
    fi
}

install "$venv" "$requirements" gunicorn httpbin
mitm_venv="${MITMPROXY_VENV:-$root/.build/mitmproxy-venv}"
install "$mitm_venv" "$root/Scripts/mitmproxy-requirements.txt" mitmdump mitmproxy

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
