#!/usr/bin/env bash
# Builds the DocC documentation of Promises, Osprey and OspreyTesting with the toolchain alone
# (no swift-docc-plugin), and fails on any docc warning or undocumented public symbol.
#
#   Scripts/docs.sh
#
# For each module: swift-symbolgraph-extract reads the module that `swift build` made (in a
# scratch path of its own, so the normal debug build is left alone), Scripts/undocumented-symbols.py
# checks that every public symbol has a /// comment, `docc convert --warnings-as-errors` writes
# .build/docs/<Module>.doccarchive, and a copy for static hosting goes to .build/docs/<module>.
# A module whose inputs (its built module files and its dependencies', its catalog, these
# scripts) are unchanged since its last successful run is skipped, so a run with nothing to do
# takes about a second.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(Promises Osprey OspreyTesting) # in dependency order
scratch=.build/docs-build
out=.build/docs

fail() {
    echo "error: $*" >&2
    exit 1
}

tool() {
    if command -v "$1" >/dev/null 2>&1; then
        command -v "$1"
    elif command -v xcrun >/dev/null 2>&1 && xcrun --find "$1" 2>/dev/null; then
        :
    else
        fail "$1 not found: it ships with the Swift toolchain"
    fi
}

docc=$(tool docc)
extract=$(tool swift-symbolgraph-extract)
command -v python3 >/dev/null 2>&1 || fail "python3 not found"

digest() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi
}

# The documented modules and their dependencies (not the macro plugin's own modules, which are
# built for the host and documented nowhere).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build --target OspreyTesting --scratch-path "$scratch" >"$log" 2>&1; then
    cat "$log" >&2
    fail "swift build failed"
fi
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
if [ -d "$bin/Modules" ]; then module_dir="$bin/Modules"; else module_dir="$bin"; fi

# C targets (CCurl) have module maps of their own, which loading Osprey's module needs.
c_modules=()
for map in "$bin"/*.build/module.modulemap; do
    if [ -e "$map" ]; then c_modules+=(-I "$(dirname "$map")"); fi
done

target=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
sdk=()
if command -v xcrun >/dev/null 2>&1; then sdk=(-sdk "$(xcrun --show-sdk-path)"); fi

extract_graphs() { # module directory [extra flags]
    local module=$1 directory=$2
    shift 2
    rm -rf "$directory"
    mkdir -p "$directory"
    "$extract" -module-name "$module" -I "$module_dir" ${c_modules[@]+"${c_modules[@]}"} -target "$target" ${sdk[@]+"${sdk[@]}"} \
        -output-dir "$directory" -minimum-access-level public -skip-synthesized-members \
        -emit-extension-block-symbols "$@"
}

mkdir -p "$out/.stamps"
upstream=()
for module in "${modules[@]}"; do
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    catalog="Sources/$module/$module.docc"
    archive="$out/$module.doccarchive"
    site="$out/$lower"
    stamp="$out/.stamps/$module"
    [ -d "$catalog" ] || fail "no catalog at $catalog"

    # Osprey's graphs include Promise's extensions, so a module's pages depend on its
    # dependencies' built modules as well as its own: hash those of every module up to this one.
    upstream+=("$module")
    key=$(
        {
            for name in "${upstream[@]}"; do
                cat "$module_dir/$name.swiftmodule" "$module_dir/$name.swiftdoc"
                [ ! -f "$module_dir/$name.swiftsourceinfo" ] || cat "$module_dir/$name.swiftsourceinfo"
            done
            find "$catalog" -type f | LC_ALL=C sort | while read -r file; do
                printf '%s\n' "$file"
                cat "$file"
            done
            cat Scripts/docs.sh Scripts/undocumented-symbols.py
        } | digest
    )
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] && [ -d "$archive" ] && [ -d "$site" ]; then
        echo "$module: up to date"
        continue
    fi
    rm -f "$stamp"
    echo "$module: building documentation"

    graphs="$scratch/symbol-graphs/$module"
    inherited="$scratch/symbol-graphs-inherited-docs/$module"
    extract_graphs "$module" "$graphs" -skip-inherited-docs
    extract_graphs "$module" "$inherited"
    python3 Scripts/undocumented-symbols.py "$module" "$graphs" "$inherited"

    rm -rf "$archive" "$site"
    # docc prints its diagnostics on stdout, and two empty lines when there are none.
    "$docc" convert "$catalog" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.osprey.$module" \
        --output-path "$archive" --warnings-as-errors | sed '/^$/d'
    # The same pages under /<module>/, so one web server can serve every module side by side.
    mkdir -p "$site"
    "$docc" process-archive transform-for-static-hosting "$archive" --output-path "$site" \
        --hosting-base-path "$lower"
    echo "$key" >"$stamp"
done

# A page that links to each module, at the root of the web server.
{
    echo '<!doctype html>'
    echo '<meta charset="utf-8"><title>Osprey documentation</title>'
    echo '<h1>Osprey documentation</h1>'
    echo '<ul>'
    for module in "${modules[@]}"; do
        lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
        echo "<li><a href=\"$lower/documentation/$lower/\">$module</a></li>"
    done
    echo '</ul>'
} >"$out/index.html"

echo
echo "Documentation archives (open in Xcode, or host them): $out/<Module>.doccarchive"
echo "To read it in a browser, serve $out over HTTP (DocC pages load their content with fetch,"
echo "which browsers refuse for file:// pages):"
echo
echo "    python3 -m http.server --directory $out 8000"
echo
echo "then open http://localhost:8000/ (Osprey: http://localhost:8000/osprey/documentation/osprey/)."
