"""Reads and writes MISP feeds with PyMISP, for threatlib's interoperability tests (run through pymisp.sh).

  misp_feed.py check <directory>             read a feed as MISP's feed fetcher and PyMISP read it; JSON report
  misp_feed.py generate <directory> < spec   write a feed with PyMISP: MISPEvent.to_feed, then feed_meta_generator

`check` follows MISP's own reader, app/Model/Feed.php of MISP/MISP (commit bb0909a37a7bd727d35f7a60ee9a6ff10bc99852),
whose PHP cannot run here, rule by rule (each check below names the lines it reproduces), and then loads every event
with PyMISP and regenerates manifest.json and hashes.csv with PyMISP's feed_meta_generator to compare them with the
feed's own. The report: {"errors": [...], "events": {uuid: {"info", "attributes": [...]}}, "hashes": n}; an empty
"errors" means MISP and PyMISP would take the feed as it is.

`generate` reads a spec on stdin: {"events": [{"uuid", "info", "date", "timestamp", "orgc": {"name", "uuid"},
"tags": [...], "attributes": [{"type", "value", "to_ids"?, "comment"?, "deleted"?, "disable_correlation"?,
"tags"?}], "objects": [{"name", "deleted"?, "attributes": [{"relation", "value", "to_ids"?}]}]}]}, builds each event
with PyMISP's API (add_attribute, MISPObject with its template, add_object), writes <uuid>.json from
MISPEvent.to_feed() and then manifest.json and hashes.csv with pymisp.tools.feed.feed_meta_generator, as the MISP
project's feed generator does. The answer: {"events": [uuid, ...]}.
"""

import csv
import hashlib
import io
import ipaddress
import json
import os
import re
import shutil
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from pymisp import MISPEvent, MISPObject, MISPOrganisation
from pymisp.tools.feed import feed_meta_generator

# CakePHP 2's Validation::uuid, which Feed::downloadAndParseEventFromFeed (Feed.php 2106-2111) applies to each
# manifest key before it builds a path or URL from it.
CAKE_UUID = re.compile(r"^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[0-5][a-fA-F0-9]{3}-[089aAbB][a-fA-F0-9]{3}-[a-fA-F0-9]{12}$")

# MispAttribute::NON_CORRELATING_TYPES (app/Model/MispAttribute.php 117-131), the part Feed::__cacheMISPFeedTraditional
# leaves out of its cache; and PRIMARY_ONLY_CORRELATING_TYPES (132-136), whose second part it leaves out.
NON_CORRELATING_TYPES = {
    "comment", "http-method", "aba-rtn", "gender", "counter", "integer", "float", "port", "hex", "boolean",
    "anonymised", "cortex", "datetime", "size-in-bytes",
}
PRIMARY_ONLY_CORRELATING_TYPES = {"ip-src|port", "ip-dst|port", "hostname|port"}

# AttributeValidationTool::isDomainValid (app/Lib/Tools/AttributeValidationTool.php 630-633).
MISP_DOMAIN = re.compile(r"^[A-Z0-9.\-_]+\.[A-Z0-9\-]{2,}$", re.I)
# The e-mail check of AttributeValidationTool::validate (415-424).
MISP_EMAIL = re.compile(r"^.[^\s]*@.*\..*$", re.I)
HASH_LENGTHS = {"md5": 32, "sha1": 40, "sha256": 64}


def misp_normalised(kind, value):
    """AttributeValidationTool::modifyBeforeValidation (39-110) for the types threatlib writes."""
    if kind in ("ip-src", "ip-dst"):
        if "/" in value:
            return value
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            return value
    if kind in ("md5", "sha1", "sha256", "hostname", "email-src", "email"):
        return value.lower()
    if kind == "domain":
        return value.lower().strip(".")
    return value


def misp_validation_error(kind, value):
    """AttributeValidationTool::validate (225-500) for the types threatlib writes; None when MISP accepts it."""
    if kind in HASH_LENGTHS:
        ok = len(value) == HASH_LENGTHS[kind] and all(c in "0123456789abcdefABCDEF" for c in value)
        return None if ok else "Checksum has an invalid length or format"
    if kind in ("ip-src", "ip-dst"):
        try:
            ipaddress.ip_network(value, strict=False) if "/" in value else ipaddress.ip_address(value)
            return None
        except ValueError:
            return "IP address has an invalid format."
    if kind in ("domain", "hostname"):
        return None if MISP_DOMAIN.match(value) else "Domain has an invalid format."
    if kind in ("email", "email-src"):
        return None if MISP_EMAIL.match(value) else "Email address has an invalid format."
    if kind in ("url", "comment"):
        return None
    return None  # not a type threatlib writes: MISP's other rules are not reproduced here


def hash_parts(kind, value):
    """The values Feed::__cacheMISPFeedTraditional (Feed.php 1623-1682) hashes for one attribute."""
    if kind in NON_CORRELATING_TYPES:
        return []
    if "|" in kind:
        parts = value.split("|")
        return parts[:1] if kind in PRIMARY_ONLY_CORRELATING_TYPES else parts
    return [value]


def check(directory):
    errors = []
    root = Path(directory)

    # Feed::downloadManifest (278-291): JsonTool::decodeArray, which wants an array (a JSON object).
    manifest = json.loads((root / "manifest.json").read_text("utf-8"))
    if not isinstance(manifest, dict):
        return {"errors": ["manifest.json is not a JSON object"], "events": {}, "hashes": 0}

    events = {}
    expected_pairs = set()
    misp_cache_pairs = set()
    for uuid, entry in manifest.items():
        where = f"manifest[{uuid}]"
        # Feed::downloadAndParseEventFromFeed (2106-2111).
        if not CAKE_UUID.match(uuid):
            errors.append(f"{where}: MISP refuses the key: Validation::uuid fails")
            continue
        # Feed::getNewEventUuids (215-247) compares the timestamp with the stored event's, as numbers.
        if not isinstance(entry.get("timestamp"), int):
            errors.append(f"{where}.timestamp: expected an integer, got {entry.get('timestamp')!r}")
        # Feed::checkEventAgainstRules (161-205) and FeedsController::__previewIndex read these.
        orgc = entry.get("Orgc") or {}
        if not isinstance(orgc.get("name"), str) or not isinstance(orgc.get("uuid"), str):
            errors.append(f"{where}.Orgc: expected {{name, uuid}}")
        if not isinstance(entry.get("info"), str):
            errors.append(f"{where}.info: expected a string")
        if not all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in entry.get("Tag", [])):
            errors.append(f"{where}.Tag: expected [{{name}}]")

        path = root / f"{uuid}.json"
        if not path.is_file():
            errors.append(f"{uuid}.json: missing")
            continue
        raw = json.loads(path.read_text("utf-8"))
        # Feed::__prepareEvent (1029-1040): a MISP API answer's wrappings, then Event.uuid is required.
        if isinstance(raw, dict) and "response" in raw:
            raw = raw["response"]
        if isinstance(raw, list):
            raw = raw[0]
        event_json = raw.get("Event") if isinstance(raw, dict) else None
        if not isinstance(event_json, dict) or "uuid" not in event_json:
            errors.append(f"{uuid}.json: Event UUID field missing")
            continue
        if event_json["uuid"] != uuid:
            errors.append(f"{uuid}.json: holds event {event_json['uuid']}")
        # Event::_add's validation of the event (app/Model/Event.php $validate): date, threat level 1-4, analysis 0-2.
        try:
            datetime.strptime(event_json.get("date", ""), "%Y-%m-%d")
        except ValueError:
            errors.append(f"{uuid}.json: date {event_json.get('date')!r} is not YYYY-MM-DD")
        if str(event_json.get("threat_level_id")) not in ("1", "2", "3", "4"):
            errors.append(f"{uuid}.json: threat_level_id {event_json.get('threat_level_id')!r}")
        if str(event_json.get("analysis")) not in ("0", "1", "2"):
            errors.append(f"{uuid}.json: analysis {event_json.get('analysis')!r}")

        # PyMISP's reader: types it knows, categories valid for them, the manifest line it would write.
        event = MISPEvent()
        try:
            event.load_file(str(path))
        except Exception as error:  # noqa: BLE001 - any refusal is the finding
            errors.append(f"{uuid}.json: PyMISP refuses it: {error}")
            continue
        mappings = event.describe_types["category_type_mappings"]
        attributes = []
        for attribute in event.attributes + [a for o in event.objects for a in o.attributes]:
            kind, value = attribute.type, attribute.value
            if kind not in mappings.get(attribute.category, []):
                errors.append(f"{uuid}.json: {kind} is not a type of category {attribute.category!r}")
            problem = misp_validation_error(kind, value)
            if problem:
                errors.append(f"{uuid}.json: {kind} {value!r}: MISP refuses it: {problem}")
            if misp_normalised(kind, value) != value:
                errors.append(f"{uuid}.json: {kind} {value!r}: MISP would store {misp_normalised(kind, value)!r}")
            for part in hash_parts(kind, value):
                misp_cache_pairs.add((hashlib.md5(part.encode("utf-8")).hexdigest(), uuid))
            attributes.append({"type": kind, "value": value, "category": attribute.category,
                               "to_ids": attribute.to_ids, "comment": attribute.comment})
        for h in event.attributes_hashes("md5"):
            expected_pairs.add((h, uuid))
        pymisp_manifest = json.loads(json.dumps(event.manifest[event.uuid]))
        if pymisp_manifest != entry:
            errors.append(f"{where}: PyMISP writes {json.dumps(pymisp_manifest, sort_keys=True)}, "
                          f"the feed has {json.dumps(entry, sort_keys=True)}")
        events[uuid] = {"info": event.info, "attributes": attributes}

    # Feed::getCache (255-270) and __cacheMISPFeedCache (1684-1706): CSV rows of [hash, event uuid].
    rows = list(csv.reader(io.StringIO((root / "hashes.csv").read_text("utf-8").strip())))
    pairs = set()
    for number, row in enumerate(rows, 1):
        if len(row) != 2:
            errors.append(f"hashes.csv line {number}: expected hash,uuid, got {row!r}")
            continue
        pairs.add((row[0], row[1]))
    if pairs != expected_pairs:
        errors.append(f"hashes.csv: {len(pairs - expected_pairs)} lines PyMISP would not write, "
                      f"{len(expected_pairs - pairs)} missing")
    if not misp_cache_pairs <= pairs:
        errors.append("hashes.csv: misses hashes MISP's traditional cache computes from the events")

    # PyMISP's feed_meta_generator over a copy of the event files: the manifest and hashes it writes must be ours.
    with tempfile.TemporaryDirectory() as scratch:
        for uuid in manifest:
            if (root / f"{uuid}.json").is_file():
                shutil.copy(root / f"{uuid}.json", Path(scratch) / f"{uuid}.json")
        feed_meta_generator(Path(scratch))
        regenerated = json.loads((Path(scratch) / "manifest.json").read_text("utf-8"))
        if regenerated != manifest:
            errors.append("manifest.json differs from the one feed_meta_generator writes for the same events")
        regenerated_hashes = sorted((Path(scratch) / "hashes.csv").read_text("utf-8").splitlines())
        if regenerated_hashes != sorted((root / "hashes.csv").read_text("utf-8").splitlines()):
            errors.append("hashes.csv differs from the one feed_meta_generator writes for the same events")

    return {"errors": errors, "events": events, "hashes": len(rows)}


def generate(directory, spec):
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for item in spec["events"]:
        event = MISPEvent()
        if "uuid" in item:
            event.uuid = item["uuid"]
        event.info = item["info"]
        event.set_date(item.get("date", "2026-01-15"))
        orgc = MISPOrganisation()
        orgc.from_dict(**item.get("orgc", {"name": "CIRCL", "uuid": "55f6ea5e-2c60-40e5-964f-47a8950d210f"}))
        event.Orgc = orgc
        for tag in item.get("tags", []):
            event.add_tag(tag)
        for spec_attribute in item.get("attributes", []):
            options = {k: spec_attribute[k] for k in ("to_ids", "comment", "disable_correlation", "category")
                       if k in spec_attribute}
            attribute = event.add_attribute(spec_attribute["type"], spec_attribute["value"], **options)
            for tag in spec_attribute.get("tags", []):
                attribute.add_tag(tag)
            if spec_attribute.get("deleted"):
                attribute.delete()
        for spec_object in item.get("objects", []):
            misp_object = MISPObject(spec_object["name"])
            for relation in spec_object["attributes"]:
                options = {k: relation[k] for k in ("to_ids", "comment") if k in relation}
                misp_object.add_attribute(relation["relation"], value=relation["value"], **options)
            if spec_object.get("deleted"):
                misp_object.deleted = True
            event.add_object(misp_object)
        stamp = datetime.fromtimestamp(item.get("timestamp", 1768435200), timezone.utc)
        event.timestamp = stamp
        event.publish_timestamp = stamp
        for attribute in event.attributes + [a for o in event.objects for a in o.attributes]:
            attribute.timestamp = stamp
        feed = event.to_feed()
        with open(root / f"{event.uuid}.json", "w") as f:
            json.dump(feed, f, indent=2)
        written.append(event.uuid)
    feed_meta_generator(root)
    return {"events": written}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("check", "generate"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    command, directory = sys.argv[1], sys.argv[2]
    if command == "check":
        result = check(directory)
    else:
        result = generate(directory, json.load(sys.stdin))
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
