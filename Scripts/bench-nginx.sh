#!/usr/bin/env bash
# Runs `osprey-bench --only network` (or the workload named by `--only`) against nginx instead of
# the in-process loopback server:
#
#   Scripts/bench-nginx.sh [extra osprey-bench arguments]
#   Scripts/bench-nginx.sh --only stream
#   Scripts/bench-nginx.sh --only https     # W5 and W6 alone
#
# Installs nginx from Debian's packages when it is missing (needs root and apt-get), serves the
# benchmark's bodies (/small, a JSON object; /large, 1 MiB; for `--only stream`, /huge, 1 GiB, and
# /events, 64 MiB of small server-sent events) from a temporary folder on a free loopback port
# with keep-alive, runs the release benchmark against it, and stops nginx and removes the folder
# afterwards, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

nginx_binary=$(command -v nginx || true)
if [[ -z "$nginx_binary" && -x /usr/sbin/nginx ]]; then nginx_binary=/usr/sbin/nginx; fi
if [[ -z "$nginx_binary" ]]; then
    echo "bench-nginx: installing nginx from Debian's packages" >&2
    if [[ $(id -u) -ne 0 ]]; then sudo=sudo; else sudo=; fi
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx-light >&2
    nginx_binary=/usr/sbin/nginx
fi

folder=$(mktemp -d "${TMPDIR:-/tmp}/osprey-nginx.XXXXXX")
nginx_pid=
cleanup() {
    if [[ -n "$nginx_pid" ]]; then
        kill "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -rf "$folder"
}
trap cleanup EXIT

mkdir -p "$folder/www" "$folder/logs"
# nginx's workers drop to an unprivileged user when started as root: they must read the bodies.
chmod 755 "$folder" "$folder/www"
# The same bodies as the loopback server's in NetworkWorkloads.swift.
printf '%s' '{"id": 1, "name": "osprey", "tags": ["a", "b", "c"]}' > "$folder/www/small"
head -c 1048576 /dev/zero | tr '\0' 'a' > "$folder/www/large"
only=network
if [[ " $* " == *" --only "* ]]; then only=; fi
if [[ " $* " == *" --only stream "* ]]; then
    # The same bodies as StreamWorkload's loopback server: DownloadWorkload.chunk's pattern, and
    # `data: N` events.
    python3 - "$folder/www" <<'PY'
import sys
chunk = bytes(((i * 31 + (i >> 8)) & 0xFF) for i in range(1 << 20))
with open(sys.argv[1] + "/huge", "wb") as out:
    for _ in range(1024):
        out.write(chunk)
with open(sys.argv[1] + "/events", "wb") as out:
    size, number, pieces = 0, 0, []
    while size < 64 << 20:
        piece = b"data: %d\n\n" % number
        pieces.append(piece)
        size += len(piece)
        number += 1
    out.write(b"".join(pieces))
PY
fi

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
# W5 and W6 (`--only network` or `--only https`): the same bodies over HTTPS, HTTP/1.1 only on one
# port and HTTP/2 on another, with a certificate for localhost from a throwaway CA made here.
https=
if [[ -z "$only" && " $* " == *" --only https "* ]] || [[ "$only" == network ]]; then https=yes; fi
tls_servers=
if [[ -n "$https" ]]; then
    tls1_port=$(free_port)
    tls2_port=$(free_port)
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=osprey bench CA" \
        -keyout "$folder/ca.key" -out "$folder/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
        -keyout "$folder/server.key" -out "$folder/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' > "$folder/server.ext"
    openssl x509 -req -in "$folder/server.csr" -CA "$folder/ca.pem" -CAkey "$folder/ca.key" -CAcreateserial \
        -days 2 -extfile "$folder/server.ext" -out "$folder/server.pem" 2>/dev/null
    # Raw URLSession trusts only the system's bundle on Linux: it gets a copy with the CA appended,
    # mounted over the real one in a namespace of the benchmark's own (the machine's store is never
    # changed).
    system_bundle=/etc/ssl/certs/ca-certificates.crt
    cat "$system_bundle" "$folder/ca.pem" > "$folder/bundle.pem"
    tls_block() {
        cat <<TLS
    server {
        listen 127.0.0.1:$1 ssl$2;
        ssl_certificate $folder/server.pem;
        ssl_certificate_key $folder/server.key;
        ssl_protocols TLSv1.3;
        root $folder/www;
        # Which version each client spoke, for the report.
        add_header X-Protocol \$server_protocol always;
        location = /small { default_type application/json; }
        location = /large { default_type application/octet-stream; }
    }
TLS
    }
    tls_servers="$(tls_block "$tls1_port" "")
$(tls_block "$tls2_port" " http2")"
fi
cat > "$folder/nginx.conf" <<CONF
worker_processes 1;
error_log $folder/logs/error.log warn;
pid $folder/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nodelay on;
    keepalive_timeout 120s;
    keepalive_requests 1000000;
    client_body_temp_path $folder/logs;
    proxy_temp_path $folder/logs;
    fastcgi_temp_path $folder/logs;
    uwsgi_temp_path $folder/logs;
    scgi_temp_path $folder/logs;
    server {
        listen 127.0.0.1:$port;
        root $folder/www;
        location = /small { default_type application/json; }
        location = /large { default_type application/octet-stream; }
        location = /huge { default_type application/octet-stream; }
        location = /events { default_type text/event-stream; }
        # The connections accepted so far: the benchmark checks that none is opened under load.
        location = /nginx_status { stub_status; }
    }
$tls_servers
}
CONF

"$nginx_binary" -p "$folder" -c "$folder/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
# Ready when it answers (a few milliseconds; give up after 10 s).
for _ in $(seq 1 200); do
    if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/small', timeout=1)" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$nginx_pid" 2>/dev/null; then
        echo "bench-nginx: nginx did not start:" >&2
        cat "$folder/logs/error.log" >&2 || true
        exit 1
    fi
    sleep 0.05
done
echo "bench-nginx: nginx $("$nginx_binary" -v 2>&1 | sed 's/.*\///') at http://127.0.0.1:$port" >&2

run=(swift run -c release -Xswiftc -warnings-as-errors osprey-bench ${only:+--only $only}
    --server "http://127.0.0.1:$port")
if [[ -n "$https" ]]; then
    if unshare --mount true 2>/dev/null; then
        https_args=(--https "https://localhost:$tls1_port,https://localhost:$tls2_port" --ca "$folder/ca.pem")
        unshare --mount sh -c 'mount --bind "$0" "$1" && shift && exec "$@"' "$folder/bundle.pem" "$system_bundle" \
            "${run[@]}" "${https_args[@]}" "$@"
        exit
    fi
    echo "bench-nginx: no mount namespace here (unshare --mount needs root): raw URLSession cannot" \
        "trust the throwaway CA, so the HTTPS workloads are left out" >&2
fi
"${run[@]}" "$@"
