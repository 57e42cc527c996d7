import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { fromStixBundle } from './from-stix-bundle.js';
import { stixIndicatorId } from './stix-objects.js';
import { toStixBundle } from './to-stix-bundle.js';

const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

let serial = 0;
function indicator(pattern: string, fields: Record<string, unknown> = {}) {
  serial += 1;
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--00000000-0000-4000-8000-${String(serial).padStart(12, '0')}`,
    created: '2024-01-01T00:00:00.000Z',
    modified: '2024-01-01T00:00:00.000Z',
    pattern,
    pattern_type: 'stix',
    valid_from: '2024-01-01T00:00:00Z',
    ...fields,
  };
}

function bundle(...objects: unknown[]) {
  return { type: 'bundle', id: 'bundle--6e4c7b1a-3c8a-4b8e-9d3a-1f2e3d4c5b6a', objects };
}

describe('fromStixBundle', () => {
  it("reads back what toStixBundle wrote, from JSON text, with each indicator's id, confidence and labels", () => {
    const written = toStixBundle(
      [
        { indicator: '198.51.100.7', type: 'ip', confidence: 70.2, verdict: 'malicious' },
        {
          indicator: SHA256,
          type: 'sha256',
          confidence: 30,
          verdict: 'suspicious',
          results: [{ feed: 'feed_otx', status: 'ok', verdict: 'suspicious', categories: ['dropper'], tags: ['x'] }],
        },
      ],
      { now: 0 },
    );
    expect(fromStixBundle(JSON.stringify(written))).toEqual({
      indicators: [
        {
          id: stixIndicatorId({ type: 'ipv4', value: '198.51.100.7' }),
          type: 'ipv4',
          value: '198.51.100.7',
          confidence: 70,
          labels: [],
        },
        {
          id: stixIndicatorId({ type: 'sha256', value: SHA256 }),
          type: 'sha256',
          value: SHA256,
          confidence: 30,
          labels: ['dropper', 'x'],
        },
      ],
      skipped: [],
    });
  });

  it('reads every comparison of an OR, normalising values and hash names written any way the grammar allows', () => {
    const orOfMany = indicator(
      "[ipv4-addr:value = '198.51.100.7' OR ipv6-addr:value = '2001:DB8:0::1'] OR " +
        "[file:hashes.SHA256 = 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855'] OR " +
        "[file:hashes.'md5' = 'd41d8cd98f00b204e9800998ecf8427e' OR file:hashes.'SHA-1' = 'da39a3ee5e6b4b0d3255bfef95601890afd80709'] OR " +
        "([domain-name:value = 'Bücher.DE'] OR [email-addr:value = 'x@EVIL.com']) OR [url:value = 'HTTP://Evil.com/a']",
      { confidence: 55, labels: ['a', 7, 'b'] },
    );
    const { indicators, skipped } = fromStixBundle(bundle(orOfMany));
    expect(skipped).toEqual([]);
    expect(indicators.map(({ type, value }) => `${type} ${value}`)).toEqual([
      'ipv4 198.51.100.7',
      'ipv6 2001:db8::1',
      `sha256 ${SHA256}`,
      'md5 d41d8cd98f00b204e9800998ecf8427e',
      'sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709',
      'domain xn--bcher-kva.de',
      'email x@evil.com',
      'url http://evil.com/a',
    ]);
    expect(indicators.every((i) => i.id === orOfMany.id && i.confidence === 55)).toBe(true);
    expect(indicators[0]?.labels).toEqual(['a', 'b']);
  });

  it('reports each indicator, or part of a pattern, it cannot read, with why, and keeps the rest', () => {
    const objects = [
      { type: 'identity', spec_version: '2.1', id: 'identity--00000000-0000-4000-8000-000000000000', name: 'someone' },
      indicator(
        "[domain-name:value = 'kept.com'] OR [file:hashes.MD5 = 'x' AND file:name = 'y'] OR [file:name = 'a.exe']",
      ),
      indicator("[file:hashes.'SHA-512' = 'ab'] OR [file:hashes.MD5 = 'not hex']"),
      indicator("[ipv4-addr:value = '10.0.0.0/8'] OR [ipv4-addr:value = '198.51.100.9/32']"),
      indicator('title:"x" and 1', { pattern_type: 'sigma' }),
      indicator("[url:value = 'http://revoked.com/']", { revoked: true }),
      indicator("[url:value = 'http://old.com/']", { valid_until: '2024-06-01T00:00:00Z' }),
      indicator("[url:value = 'broken]"),
      indicator("[url:value = 'http://later.com/']", { valid_until: '2099-01-01T00:00:00Z' }),
      { ...indicator('no pattern'), pattern: undefined },
      { type: 'indicator', pattern: "[url:value = 'http://noid.com/']" },
      'not an object',
    ];
    const { indicators, skipped } = fromStixBundle(bundle(...objects), { now: Date.parse('2025-01-01T00:00:00Z') });
    expect(indicators.map((i) => i.value)).toEqual(['kept.com', '198.51.100.9', 'http://later.com/']);
    const id = (n: number) => (objects[n] as { id: string }).id;
    expect(skipped).toEqual([
      {
        id: id(1),
        index: 1,
        reason:
          "its pattern: file:hashes.MD5 = 'x' AND file:name = 'y' joins comparisons with AND (all must hold), which no single indicator expresses",
      },
      {
        id: id(1),
        index: 1,
        reason: expect.stringMatching(/^its pattern: file:name is not a property threatlib reads/),
      },
      {
        id: id(2),
        index: 2,
        reason:
          'its pattern: file:hashes.SHA-512: the hash algorithm "SHA-512" is not one threatlib knows (MD5, SHA-1, SHA-256)',
      },
      {
        id: id(2),
        index: 2,
        reason: 'file:hashes.MD5 "not hex": contains whitespace (U+0020); an indicator is a single token',
      },
      {
        id: id(3),
        index: 3,
        reason:
          'ipv4-addr:value "10.0.0.0/8" is an address range, not a single indicator (a local list of format stix matches ranges)',
      },
      { id: id(4), index: 4, reason: 'has pattern_type "sigma"; only STIX patterns are read' },
      { id: id(5), index: 5, reason: 'is revoked' },
      { id: id(6), index: 6, reason: 'expired (valid_until 2024-06-01T00:00:00Z)' },
      {
        id: id(7),
        index: 7,
        reason: 'its pattern is not a valid STIX pattern: a string literal is not closed (at character 14)',
      },
      { id: id(9), index: 9, reason: 'has no pattern' },
      { id: 'objects[10]', index: 10, reason: 'is an indicator without a valid id (indicator--<UUID>)' },
    ]);
  });

  it('reads the latest version of an indicator the bundle holds more than once, and reports the others', () => {
    const v1 = indicator("[domain-name:value = 'v1.com']", { modified: '2024-01-01T00:00:00.000Z' });
    const v2 = { ...v1, pattern: "[domain-name:value = 'v2.com']", modified: '2024-03-01T00:00:00.000Z' };
    const v0 = { ...v1, pattern: "[domain-name:value = 'v0.com']", modified: '2023-12-01T00:00:00.000Z' };
    const { indicators, skipped } = fromStixBundle(bundle(v1, v2, v0));
    expect(indicators.map((i) => i.value)).toEqual(['v2.com']);
    expect(skipped.map(({ index, reason }) => [index, reason])).toEqual([
      [
        0,
        `is an older version (modified 2024-01-01T00:00:00.000Z) of an indicator the bundle also holds as modified 2024-03-01T00:00:00.000Z`,
      ],
      [
        2,
        `is an older version (modified 2023-12-01T00:00:00.000Z) of an indicator the bundle also holds as modified 2024-03-01T00:00:00.000Z`,
      ],
    ]);
  });

  it('reads a STIX 2.0 indicator, which has no pattern_type', () => {
    const old = {
      ...indicator("[url:value = 'http://old-style.com/']"),
      spec_version: undefined,
      pattern_type: undefined,
    };
    expect(fromStixBundle(bundle(old)).indicators.map((i) => i.value)).toEqual(['http://old-style.com/']);
  });

  it('refuses what is not a bundle, saying what is wrong', () => {
    expect(() => fromStixBundle('{"type": "bundle", ')).toThrow(/^Invalid STIX bundle: not JSON \(/);
    expect(() => fromStixBundle([])).toThrow('Invalid STIX bundle: expected a STIX bundle object');
    expect(() => fromStixBundle({ type: 'indicator', objects: {} })).toThrow(
      'Invalid STIX bundle: type: expected "bundle", got "indicator"; objects: expected a list of STIX objects',
    );
    expect(() => fromStixBundle({ objects: [] })).toThrow(ValidationError);
    expect(fromStixBundle({ type: 'bundle', id: 'bundle--6e4c7b1a-3c8a-4b8e-9d3a-1f2e3d4c5b6a' })).toEqual({
      indicators: [],
      skipped: [],
    });
  });
});
