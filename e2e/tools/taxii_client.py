"""Drives taxii2-client, the OASIS reference TAXII 2.1 client, against a server, as one request given as JSON on stdin.

Input:  {"url": "<discovery URL>", "token": "<bearer token>" | null, "user": ..., "password": ...,
         "collection": "<alias or id>", "read": {"per_request": 100} | null, "add": {"objects": [...]} | null}
Output: {"discovery": {"title", "api_roots"}, "collections": [{"id", "alias", "can_read", "can_write"}],
         "pages": [<object ids of each page>], "objects": [<every object read>], "manifest_count": <n>,
         "status": <the status resource of the add, after waiting for it to complete>, "status_again": <GET status>}

Everything goes through the library's own classes (Server, ApiRoot, Collection, Status, as_pages), so that a
response the library cannot read fails here as it would for its users. The exit status is 0 when the exchange ran, 1
with the library's error on stderr when it failed, 2 when the input cannot be read.
"""

import json
import sys

import requests.auth
from taxii2client.v21 import Server, as_pages


class Bearer(requests.auth.AuthBase):
    def __init__(self, token):
        self.token = token

    def __call__(self, request):
        request.headers["Authorization"] = "Bearer " + self.token
        return request


def main():
    try:
        request = json.load(sys.stdin)
    except ValueError as error:
        print(f"taxii_client: standard input is not JSON: {error}", file=sys.stderr)
        return 2
    credentials = (
        {"auth": Bearer(request["token"])}
        if request.get("token")
        else {"user": request["user"], "password": request["password"]}
        if request.get("user")
        else {}
    )
    server = Server(request["url"], **credentials)
    result = {"discovery": {"title": server.title, "api_roots": [root.url for root in server.api_roots]}}
    root = server.api_roots[0]
    result["collections"] = [
        {"id": c.id, "alias": c.alias, "can_read": c.can_read, "can_write": c.can_write} for c in root.collections
    ]
    wanted = request.get("collection")
    collection = next((c for c in root.collections if wanted in (c.id, c.alias)), None)
    if collection is None:
        print(f"taxii_client: no collection {wanted!r}", file=sys.stderr)
        return 1

    add = request.get("add")
    if add is not None:
        status = collection.add_objects(add, wait_for_completion=True, poll_interval=0.2, timeout=20)
        result["status"] = status._raw
        result["status_again"] = root.get_status(status.id)._raw

    read = request.get("read")
    if read is not None:
        pages = []
        objects = []
        for envelope in as_pages(collection.get_objects, per_request=read["per_request"]):
            page = envelope.get("objects", [])
            pages.append([o["id"] for o in page])
            objects.extend(page)
        result["pages"] = pages
        result["objects"] = objects
        manifest = 0
        for envelope in as_pages(collection.get_manifest, per_request=read["per_request"]):
            manifest += len(envelope.get("objects", []))
        result["manifest_count"] = manifest

    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
