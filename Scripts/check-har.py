"""Checks HAR files the way other tools read them: against a JSON Schema of HAR 1.2 written from
the specification, then loaded by haralyzer (PyPI). Prints one line per file; exits 1 if any fails.

    python Scripts/check-har.py Scripts/har-1.2.schema.json FILE...

The HAR tests run it with the python of Scripts/with-httpbin.sh, which installs both packages.
"""
import json
import sys

import jsonschema
from haralyzer import HarEntry, HarParser


def main():
    schema = json.load(open(sys.argv[1]))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    failed = False
    for path in sys.argv[2:]:
        archive = json.load(open(path))
        errors = sorted(validator.iter_errors(archive), key=lambda error: list(error.absolute_path))
        if errors:
            failed = True
            for error in errors[:5]:
                print(f"{path}: {'/'.join(map(str, error.absolute_path))}: {error.message}")
            continue
        parser = HarParser(archive)
        entries = parser.har_data["entries"]
        for entry in entries:
            # haralyzer's entry reads the fields it knows; a wrong type or a missing field raises.
            loaded = HarEntry(entry)
            loaded.request.url, loaded.request.headers, loaded.response.status, loaded.response.mimeType
        print(f"{path}: valid, {len(entries)} entries")
    sys.exit(1 if failed else 0)


main()
