import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  riskScoreForConfidence,
  SeveritySchema,
  severityForRiskScore,
  severityRank,
  ThreatLevelSchema,
  threatLevelForRiskScore,
} from './severity.js';

describe('severityForRiskScore', () => {
  it.each([
    [1, 'informational'],
    [2, 'low'],
    [3, 'low'],
    [4, 'medium'],
    [6, 'medium'],
    [7, 'high'],
    [8, 'high'],
    [9, 'critical'],
    [10, 'critical'],
  ])('maps risk score %i to %s (the documented bands)', (score, severity) => {
    expect(severityForRiskScore(score)).toBe(severity);
  });

  it('rounds fractions and clamps what is out of range', () => {
    expect([6.4, 6.5, 0, -3, 11, Number.NaN].map(severityForRiskScore)).toEqual([
      'medium',
      'high',
      'informational',
      'informational',
      'critical',
      'informational',
    ]);
  });

  it('orders severities for comparison', () => {
    expect(severityRank('critical')).toBeGreaterThan(severityRank('high'));
    expect(severityRank('informational')).toBe(0);
  });
});

describe('threatLevelForRiskScore', () => {
  it('is the severity, with informational raised to low', () => {
    expect([1, 2, 5, 8, 10].map(threatLevelForRiskScore)).toEqual(['low', 'low', 'medium', 'high', 'critical']);
  });
});

describe('riskScoreForConfidence', () => {
  it('is the risk score of one source with that confidence', () => {
    expect([0, 50, 85, 100].map(riskScoreForConfidence)).toEqual([1, 6, 9, 10]);
  });
});

describe('SeveritySchema and ThreatLevelSchema', () => {
  it('take any case and give lower case', () => {
    expect(SeveritySchema.parse('HIGH')).toBe('high');
    expect(SeveritySchema.parse('Informational')).toBe('informational');
    expect(ThreatLevelSchema.parse('Critical')).toBe('critical');
  });

  it('refuse another word, listing the allowed ones', () => {
    expect(SeveritySchema.safeParse('severe').error?.issues[0]?.message).toBe(
      'expected one of informational, low, medium, high, critical, got "severe"',
    );
    expect(ThreatLevelSchema.safeParse('informational').error?.issues[0]?.message).toBe(
      'expected one of low, medium, high, critical, got "informational"',
    );
    expect(SeveritySchema.safeParse(8).error?.issues[0]?.message).toBe(
      'expected one of informational, low, medium, high, critical',
    );
  });

  it('publish a JSON Schema pattern that takes every case they take, and nothing else', () => {
    for (const [schema, taken, refused] of [
      [SeveritySchema, ['high', 'HIGH', 'Critical', 'iNfOrMaTiOnAl'], ['severe', 'high ', 'hig', 'highh', '']],
      [ThreatLevelSchema, ['LOW', 'medium'], ['informational', 'lo w']],
    ] as const) {
      const { pattern } = z.toJSONSchema(schema, { io: 'input' }) as { pattern: string };
      // A JSON Schema pattern is an ECMA-262 regular expression without flags.
      const published = new RegExp(pattern, 'u');
      for (const value of taken) {
        expect(published.test(value), value).toBe(true);
        expect(schema.safeParse(value).success, value).toBe(true);
      }
      for (const value of refused) {
        expect(published.test(value), value).toBe(false);
        expect(schema.safeParse(value).success, value).toBe(false);
      }
    }
  });
});
