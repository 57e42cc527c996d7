"""Runs the OASIS STIX validators over the patterns and bundles given as JSON on standard input.

Input:  {"patterns": ["[ipv4-addr:value = '198.51.100.7']", ...], "bundles": ["<bundle JSON text>", ...]}
Output: {"patterns": [{"pattern": ..., "errors": [...]}], "bundles": [{"valid": bool, "errors": [...], "warnings": [...]}]}

Patterns go through stix2patterns.validator.run_validator (the STIX 2.1 grammar and its object checks). Bundles go
through stix2validator.validate_string with the strictest options: every SHOULD is an error (strict), no custom
object types or properties, references resolved inside the bundle, the interop profile, except the two SHOULDs listed
in DISABLED below, which threatlib departs from on purpose. The exit status is 0 whatever the verdicts (the caller
reads them); it is 2 only when the input cannot be read.
"""

import json
import sys

from stix2patterns.validator import run_validator
from stix2validator import ValidationOptions, validate_string

# 103 uuid-check: STIX 2.1 recommends UUIDv4 for indicators; threatlib's indicator ids are UUIDv5 of the indicator,
#     so that publishing the same indicator again updates it instead of adding a copy (issue 17 asks for that).
# 302 extref-hashes: an external reference with a URL SHOULD carry hashes of the page; a feed's reference is a link to
#     a live page that threatlib never fetched, so there is nothing to hash.
DISABLED = ["103", "302"]


def bundle_options():
    return ValidationOptions(
        version="2.1",
        strict=True,
        strict_types=True,
        strict_properties=True,
        enforce_refs=True,
        interop=True,
        disabled=list(DISABLED),
        silent=True,
    )


def check_bundle(text):
    try:
        results = validate_string(text, bundle_options())
    except Exception as error:  # the validator raises on input it cannot read at all (not JSON, no type, ...)
        return {"valid": False, "errors": [f"{type(error).__name__}: {error}"], "warnings": []}
    results = results if isinstance(results, list) else [results]
    errors = []
    warnings = []
    for result in results:
        errors.extend(f"{result.object_id}: {error}" for error in result.errors or [])
        warnings.extend(f"{result.object_id}: {warning}" for warning in result.warnings or [])
    return {"valid": all(result.is_valid for result in results), "errors": errors, "warnings": warnings}


def main():
    try:
        request = json.load(sys.stdin)
    except ValueError as error:
        print(f"stix_validate: standard input is not JSON: {error}", file=sys.stderr)
        return 2
    patterns = [{"pattern": p, "errors": list(run_validator(p, stix_version="2.1"))} for p in request.get("patterns", [])]
    bundles = [check_bundle(b if isinstance(b, str) else json.dumps(b)) for b in request.get("bundles", [])]
    json.dump({"patterns": patterns, "bundles": bundles}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
