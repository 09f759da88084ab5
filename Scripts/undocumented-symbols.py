#!/usr/bin/env python3
"""Lists the public symbols of a module that have no documentation comment of their own.

    Scripts/undocumented-symbols.py MODULE OWN_DOCS_DIR INHERITED_DOCS_DIR

Both directories hold the module's symbol graphs from swift-symbolgraph-extract, the first made
with -skip-inherited-docs (a symbol has a docComment only if its declaration carries one), the
second without it. docc does not complain about undocumented symbols, so this does: it prints
each one as `path:line: error: ...` and exits 1 if there is any.

A bare `///` does not count as documentation. Not checked:
- symbols without a source location: members the compiler writes (a Codable `init(from:)`, an
  enum's `hash(into:)`), which have no declaration to comment;
- extension blocks (`swift.extension`), which are not declarations of API: their members are
  checked one by one;
- implementations of another module's protocol requirements, and overrides of its methods,
  that inherit that module's documentation (a hand-written `==`, `description`,
  `errorDescription`). Implementing or overriding something of this module's own still needs a
  comment of its own.
Default implementations inherited from protocol extensions are left out of the graphs by
-skip-synthesized-members.
"""

import glob
import json
import os
import sys
from urllib.parse import unquote, urlparse


def load_symbols(directory):
    """Maps each symbol's precise identifier to the symbol, over every graph in directory."""
    symbols = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.symbols.json"))):
        with open(path, encoding="utf-8") as file:
            for symbol in json.load(file)["symbols"]:
                symbols[symbol["identifier"]["precise"]] = symbol
    return symbols


def has_text(doc_comment):
    """Whether a docComment says anything (a bare `///` does not)."""
    return any(line["text"].strip() for line in (doc_comment or {}).get("lines", []))


def source_position(symbol):
    """`relative/path.swift:line` of a symbol's declaration (lines in graphs count from 0)."""
    location = symbol["location"]
    path = unquote(urlparse(location["uri"]).path)
    try:
        path = os.path.relpath(path)
    except ValueError:
        pass
    return f"{path}:{location['position']['line'] + 1}"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    module, own_directory, inherited_directory = sys.argv[1:]
    own = load_symbols(own_directory)
    inherited = load_symbols(inherited_directory)
    if not own:
        sys.exit(f"error: no symbol graphs for {module} in {own_directory}")

    undocumented = []
    for identifier, symbol in own.items():
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        if symbol["kind"]["identifier"] == "swift.extension" or "location" not in symbol:
            continue
        if has_text(symbol.get("docComment")):
            continue
        borrowed = inherited.get(identifier, {}).get("docComment")
        if borrowed and borrowed.get("module", module) != module:
            continue
        undocumented.append(symbol)

    def order(symbol):
        return (symbol["location"]["uri"], symbol["location"]["position"]["line"])

    for symbol in sorted(undocumented, key=order):
        name = ".".join(symbol["pathComponents"])
        kind = symbol["kind"]["displayName"].lower()
        print(f"{source_position(symbol)}: error: public {kind} '{name}' has no /// comment")
    if undocumented:
        print(f"{module}: {len(undocumented)} undocumented public symbol(s)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
