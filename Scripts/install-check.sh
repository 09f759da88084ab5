#!/usr/bin/env bash
# Checks the README's installation section as a new user would use it: its whole `Package.swift`,
# as written but for the dependency on this checkout given by path (the public address is a
# placeholder), with the README's first example ("An API client") as the program, its host
# pointed at a local server. The test target, which depends on `OspreyTesting`, is built and run
# too.
#
#   Scripts/install-check.sh
#
# Builds in a temporary folder (removed afterwards) and fails unless the example prints the
# repositories the server answered with.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

work=$(mktemp -d -t osprey-install.XXXXXX)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
# The package's identity comes from the folder's name: "osprey", as in the README.
ln -s "$repo" "$work/osprey"

# The server the example's requests go to, in place of api.github.com: a static file at the path
# the example asks for, served by Python's http.server on a free loopback port.
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
mkdir -p "$work/site/users/username"
printf '[{"name": "osprey"}, {"name": "promises"}]' >"$work/site/users/username/repos"

python3 - "$repo/README.md" "$work" "http://127.0.0.1:$port" <<'PY'
import os, re, sys
readme, work, base = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
install = readme.split("## Installation", 1)[1].split("\n## ", 1)[0]
manifest = re.search(r"```swift\n(.*?)```", install, re.S).group(1)
dependency = '.package(url: "https://example.com/osprey.git", from: "1.0.0")'
if not manifest.startswith("// swift-tools-version: 6.0\nimport PackageDescription\n"):
    sys.exit("install-check: the README's Package.swift should start with its tools version and import")
if dependency not in manifest:
    sys.exit("install-check: the README's dependency line is not the one this check knows")
products = re.findall(r'^\s*\.product\(name: "(Osprey|OspreyTesting)", package: "osprey"\),$', manifest, re.M)
if sorted(products) != ["Osprey", "OspreyTesting"]:
    sys.exit(f"install-check: the README's Package.swift should have the two product lines, found {products}")
executable = re.search(r'\.executableTarget\(\s*name: "(\w+)"', manifest)
tests = re.search(r'\.testTarget\(\s*name: "(\w+)"', manifest)
if not executable or not tests:
    sys.exit("install-check: the README's Package.swift should have an executable target and a test target")
app, app_tests = executable.group(1), tests.group(1)
os.makedirs(f"{work}/app")
open(f"{work}/app/Package.swift", "w").write(manifest.replace(dependency, '.package(path: "../osprey")'))

client = readme.split("## An API client", 1)[1]
example = re.search(r"```swift\n(.*?)```", client, re.S).group(1)
host = "https://api.github.com"
if host not in example or not example.rstrip().endswith("}"):
    sys.exit("install-check: the README's first example changed: update this check")
os.makedirs(f"{work}/app/Sources/{app}")
open(f"{work}/app/Sources/{app}/main.swift", "w").write(f'''import Foundation

// The README's first example, as written but for its host:
{example.replace(host, base).rstrip()}
    .finally {{ exit(0) }}

dispatchMain()
''')
os.makedirs(f"{work}/app/Tests/{app_tests}")
open(f"{work}/app/Tests/{app_tests}/LoopbackTests.swift", "w").write('''import OspreyTesting
import Testing

@Test func aLoopbackServerStarts() throws {
    let server = try LoopbackServer()
    server.stop()
}
''')
open(f"{work}/app-name", "w").write(app)
PY
app=$(cat "$work/app-name")

python3 -m http.server --bind 127.0.0.1 --directory "$work/site" "$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do # bounded: 10 s
    if python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=1)" \
        "http://127.0.0.1:$port/users/username/repos" >/dev/null 2>&1; then
        break
    fi
    sleep 0.1
done

echo "install-check: building a package with the README's Package.swift" >&2
cd "$work/app"
swift build --build-tests -Xswiftc -warnings-as-errors >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
swift test --skip-build >"$work/test.log" 2>&1 || { cat "$work/test.log" >&2; exit 1; }
grep -q 'Test run with 1 test .*passed' "$work/test.log" || {
    cat "$work/test.log" >&2
    echo "install-check: the test target's test did not run" >&2
    exit 1
}
output=$(timeout 60 swift run --skip-build "$app")
echo "$output"
case "$output" in
*'name: "osprey"'*'name: "promises"'*)
    echo "install-check: the README's example ran against the local server" >&2 ;;
*)
    echo "install-check: the example did not print the server's repositories" >&2
    cat "$work/server.log" >&2
    exit 1 ;;
esac
