import { describe, expect, it } from 'vitest';
import { acceptsTaxii, contentTypeProblem } from './media-types.js';

describe('TAXII media types', () => {
  it.each([
    [undefined, true],
    ['application/taxii+json;version=2.1', true],
    ['application/taxii+json; version="2.1"', true],
    ['APPLICATION/TAXII+JSON;VERSION=2.1', true],
    ['application/taxii+json', true],
    ['application/taxii+json;version=2.1;charset=utf-8', true],
    ['application/*', true],
    ['*/*', true],
    ['text/html,application/xhtml+xml,*/*;q=0.8', true],
    ['application/taxii+json;version=2.0, application/taxii+json;version=2.1;q=0.5', true],
    ['application/taxii+json;version=2.0', false],
    ['application/vnd.oasis.taxii+json; version=2.0', false],
    ['application/json', false],
    ['application/stix+json;version=2.1', false],
    ['application/taxii+json;q=0, */*', false],
    ['*/*;q=0', false],
    ['application/taxii+json;version=2.1;q=abc', false],
    ['application/taxii+json;version=2.1;profile=x', false],
    ['', false],
    ['garbage', false],
    [';;;,,,', false],
    ['"', false],
  ])('Accept %j is acceptable: %s', (accept, expected) => {
    expect(acceptsTaxii(accept)).toBe(expected);
  });

  it.each([
    ['application/taxii+json;version=2.1', undefined],
    ['application/taxii+json', undefined],
    ['Application/TAXII+JSON; Version="2.1"; charset=UTF-8', undefined],
    [undefined, /has no Content-Type/],
    ['', /has no Content-Type/],
    ['application/json', /another media type/],
    ['application/stix+json;version=2.1', /another media type/],
    ['application/taxii+json;version=2.0', /TAXII 2\.1 only/],
    ['application/taxii+json;charset=latin1', /UTF-8/],
    ['application/taxii+json;boundary=x', /parameter TAXII does not define/],
    ['application/taxii+json;(=x', /malformed/],
  ])('Content-Type %j: %s', (contentType, problem) => {
    const found = contentTypeProblem(contentType);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});
