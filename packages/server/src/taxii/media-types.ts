import Negotiator from 'negotiator';

/** TAXII 2.1 resources (discovery, collections, envelopes, status, errors): TAXII 2.1 section 1.6.8. */
export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';

/** The media type of the STIX objects a collection holds (its `media_types`, a manifest's `media_type`). */
export const stixMediaType = (specVersion: string): string => `application/stix+json;version=${specVersion}`;

/** The forms of the TAXII media type an Accept header may name (a charset parameter is met: JSON is UTF-8). */
const OFFERED = [TAXII_MEDIA_TYPE, `${TAXII_MEDIA_TYPE};charset=utf-8`];

/**
 * Whether a request's Accept header allows a TAXII 2.1 answer, as HTTP content negotiation reads it (RFC 9110
 * section 12.5.1): `application/taxii+json;version=2.1`, the same without the version (the latest), `application/*`,
 * `*` + `/*`, or no Accept at all; never a range whose quality is 0, nor another version (`version=2.0`).
 */
export function acceptsTaxii(accept: string | undefined): boolean {
  try {
    return new Negotiator({ headers: accept === undefined ? {} : { accept } }).mediaType(OFFERED) !== undefined;
  } catch {
    // A header the parser cannot read accepts nothing it could name.
    return false;
  }
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Why a request body's Content-Type is not TAXII 2.1's (`application/taxii+json;version=2.1`, or without the
 * version, with at most a UTF-8 charset besides), or undefined when it is.
 */
export function contentTypeProblem(contentType: string | undefined): string | undefined {
  const expected = `send ${TAXII_MEDIA_TYPE}`;
  if (contentType === undefined || contentType.trim() === '') return `${expected}: this request has no Content-Type`;
  const [type = '', ...parameters] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/taxii+json') {
    // The Content-Type is not repeated: no answer quotes a request header.
    return `${expected}: the Content-Type of this request is another media type`;
  }
  for (const parameter of parameters) {
    if (parameter.trim() === '') continue;
    const equals = parameter.indexOf('=');
    const name = (equals === -1 ? parameter : parameter.slice(0, equals)).trim().toLowerCase();
    const value = unquote(equals === -1 ? '' : parameter.slice(equals + 1).trim());
    if (!TOKEN.test(name)) return `${expected}: the Content-Type of this request is malformed`;
    if (name === 'version') {
      if (value !== '2.1') return `${expected}: this server speaks TAXII 2.1 only, not the version this request names`;
    } else if (name === 'charset') {
      if (value.toLowerCase() !== 'utf-8')
        return `${expected}: TAXII bodies are UTF-8, not the charset this request names`;
    } else {
      return `${expected}: the Content-Type of this request has a parameter TAXII does not define`;
    }
  }
  return undefined;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}
