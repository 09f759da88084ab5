#!/usr/bin/env bash
# Checks the README's installation lines as a new user would use them: a scratch package whose
# targets depend on `Osprey` and `OspreyTesting` with exactly the README's `.product(...)` lines
# (the dependency on this checkout given by path, since the public address is a placeholder),
# running the README's first example ("An API client") with its host pointed at a LoopbackServer.
#
#   Scripts/install-check.sh
#
# Builds in a temporary folder (removed afterwards) and fails unless the example prints the
# repositories the server answered with.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

work=$(mktemp -d -t osprey-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The package's identity comes from the folder's name: "osprey", as in the README.
ln -s "$repo" "$work/osprey"
mkdir -p "$work/app/Sources/App"

python3 - "$repo/README.md" "$work" <<'PY'
import re, sys
readme, work = open(sys.argv[1]).read(), sys.argv[2]
install = readme.split("## Installation", 1)[1].split("\n## ", 1)[0]
products = re.findall(r'^\s*(\.product\(name: "(?:Osprey|OspreyTesting)", package: "osprey"\),)$', install, re.M)
if len(products) != 2:
    sys.exit(f"install-check: the README's installation section should have the two product lines, found {products}")
if '.package(url: "https://example.com/osprey.git", from: "1.0.0")' not in install:
    sys.exit("install-check: the README's dependency line is not the one this check knows")
client = readme.split("## An API client", 1)[1]
example = re.search(r"```swift\n(.*?)```", client, re.S).group(1)
host = "https://api.github.com"
if host not in example or not example.rstrip().endswith("}"):
    sys.exit("install-check: the README's first example changed: update this check")
example = example.replace(host, '\\(CheckServer.base)')
open(f"{work}/app/Package.swift", "w").write(f'''// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    dependencies: [
        .package(path: "../osprey"),
    ],
    targets: [
        .executableTarget(
            name: "App",
            dependencies: [
                {products[0]}
                {products[1]}
            ]
        ),
    ]
)
''')
open(f"{work}/app/Sources/App/main.swift", "w").write(f'''import Foundation
import OspreyTesting

/// The loopback server the example's requests go to, in place of api.github.com.
enum CheckServer {{
    static let server: LoopbackServer = {{
        let server = try! LoopbackServer()
        server.route("/users/:name/repos") {{ _ in .json(#"[{{"name": "osprey"}}, {{"name": "promises"}}]"#) }}
        return server
    }}()
    static let base = server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
}}

// The README's first example, as written:
{example.rstrip()}
    .finally {{ exit(0) }}

dispatchMain()
''')
PY

echo "install-check: building a package that depends on Osprey as the README says" >&2
cd "$work/app"
swift build -Xswiftc -warnings-as-errors >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
output=$(timeout 60 swift run --skip-build App)
echo "$output"
case "$output" in
*'Repository(name: "osprey"), App.Repository(name: "promises")'* | *'name: "osprey"'*'name: "promises"'*)
    echo "install-check: the README's example ran against the loopback server" >&2 ;;
*)
    echo "install-check: the example did not print the server's repositories" >&2
    exit 1 ;;
esac
