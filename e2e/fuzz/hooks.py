"""schemathesis checks of our own, loaded by e2e/fuzz/schemathesis.sh through SCHEMATHESIS_HOOKS."""

import schemathesis


def _sent_credentials(request):
    """The credential the request's Authorization header carried (what follows the scheme), if long enough to tell."""
    value = (request.headers.get("Authorization") or "").strip()
    _scheme, _, credential = value.partition(" ")
    credential = credential.strip() or value
    # A short one (a fuzzer's "a") can appear in any answer by chance; the tokens this run sends are long.
    return [credential] if len(credential) >= 8 else []


def _sent_elsewhere(request, credential):
    """Whether the request itself carried the credential outside its Authorization header (in the URL or body)."""
    body = request.body or b""
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    needle = credential.lower()
    return needle in (request.url or "").lower() or needle.encode("utf-8", "ignore") in body.lower()


@schemathesis.check
def no_credential_echo(ctx, response, case):
    """No answer repeats the credential it was sent: not in its body, not in a header, in any letter case."""
    for credential in _sent_credentials(response.request):
        if _sent_elsewhere(response.request, credential):
            continue
        needle = credential.lower()
        if needle.encode("utf-8", "ignore") in (response.content or b"").lower():
            raise AssertionError("The response body contains the bearer token the request sent")
        for name, values in response.headers.items():
            if any(needle in str(value).lower() for value in values):
                raise AssertionError(f"The response header {name!r} contains the bearer token the request sent")
