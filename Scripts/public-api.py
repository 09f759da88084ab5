#!/usr/bin/env python3
"""The public API of Promises, Osprey and OspreyTesting as sorted lines, checked against API/.

    Scripts/public-api.py check    # fail on any difference from API/<Module>.txt
    Scripts/public-api.py update   # write API/<Module>.txt from the current build

Reads the symbol graphs Scripts/docs.sh extracts (.build/docs-build/symbol-graphs/<Module>):
one line per public symbol, `path | kind | declaration`. Symbols hidden from the documentation
(`@_documentation(visibility: internal)`: the plumbing generated code calls) are not in the
graphs, so not in the lists.

`check` sorts the differences into removals (a symbol gone or its declaration changed: a break
for code that used it) and additions. A removal fails unless the CHANGELOG's Unreleased section
has a `### Breaking` heading that names the symbol (by its path, such as
`AbstractAPI.request(route:parameters:)`): a break must be announced, under a new major version.
An addition fails until the list is updated, so that every change to the public surface is seen
and recorded in review.
"""
import glob
import json
import os
import re
import sys

MODULES = ["Promises", "Osprey", "OspreyTesting"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = os.path.join(ROOT, ".build", "docs-build", "symbol-graphs")
LISTS = os.path.join(ROOT, "API")


def current(module):
    files = sorted(glob.glob(os.path.join(GRAPHS, module, module + "*.symbols.json")))
    if not files:
        sys.exit(f"public-api: no symbol graphs for {module} in {GRAPHS}: run Scripts/docs.sh first")
    lines = set()
    for path in files:
        with open(path) as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            declaration = " ".join(declaration.split())
            kind = symbol["kind"]["identifier"].replace("swift.", "")
            lines.add(f"{'.'.join(symbol['pathComponents'])} | {kind} | {declaration}")
    return sorted(lines)


def recorded(module):
    path = os.path.join(LISTS, module + ".txt")
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return [line.rstrip("\n") for line in handle if line.strip() and not line.startswith("#")]


def announced_breaks():
    """The text of the CHANGELOG's Unreleased section under a `### Breaking` heading."""
    with open(os.path.join(ROOT, "CHANGELOG.md")) as handle:
        text = handle.read()
    match = re.search(r"^## \[Unreleased\]\s*$(.*?)(?=^## )", text, re.M | re.S)
    if not match:
        return ""
    section = match.group(1)
    breaking = re.search(r"^### Breaking.*?$(.*?)(?=^### |\Z)", section, re.M | re.S)
    return breaking.group(1) if breaking else ""


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("check", "update"):
        sys.exit(__doc__)
    if sys.argv[1] == "update":
        os.makedirs(LISTS, exist_ok=True)
        for module in MODULES:
            lines = current(module)
            with open(os.path.join(LISTS, module + ".txt"), "w") as handle:
                handle.write(f"# The public API of {module}, checked by Scripts/public-api.py (one symbol per line).\n")
                handle.write("\n".join(lines) + "\n")
            print(f"public-api: {module}: {len(lines)} symbols recorded")
        return
    breaks = announced_breaks()
    failed = False
    for module in MODULES:
        baseline = recorded(module)
        if baseline is None:
            print(f"public-api: no API/{module}.txt: run Scripts/public-api.py update")
            failed = True
            continue
        now = current(module)
        removed = sorted(set(baseline) - set(now))
        added = sorted(set(now) - set(baseline))
        # A stored `var` that becomes a computed one with a getter and a setter (or back) is the
        # same to the code that uses it: reading, assigning, `inout` and writable key paths all
        # still work, so it is neither a break nor an addition.
        same_use = {line for line in removed if line + " { get set }" in added}
        same_use |= {line + " { get set }" for line in same_use}
        same_use |= {line for line in added if line + " { get set }" in removed}
        same_use |= {line + " { get set }" for line in added if line + " { get set }" in removed}
        removed = [line for line in removed if line not in same_use]
        added = [line for line in added if line not in same_use]
        unannounced = [line for line in removed if line.split(" | ")[0] not in breaks]
        for line in unannounced:
            print(f"public-api: {module}: BREAKING, removed or changed: {line}")
        for line in removed:
            if line not in unannounced:
                print(f"public-api: {module}: announced break: {line}")
        for line in added:
            print(f"public-api: {module}: added: {line}")
        if unannounced:
            print(f"public-api: {module}: a public symbol changed or went away. Keep it, or name it "
                  "under '### Breaking' in the CHANGELOG's Unreleased section for the next major version.")
        if added:
            print(f"public-api: {module}: record the reviewed additions with Scripts/public-api.py update")
        failed = failed or bool(unannounced) or bool(added)
        if not removed and not added:
            print(f"public-api: {module}: {len(now)} symbols, as recorded")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
