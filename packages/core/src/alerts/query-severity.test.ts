import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { querySeverityRank } from './query-severity.js';

describe('querySeverityRank', () => {
  it('ranks each severity, lowest first, in any case', () => {
    expect(['informational', 'low', 'Medium', 'HIGH', 'critical'].map((s) => querySeverityRank(s))).toEqual([
      0, 1, 2, 3, 4,
    ]);
  });

  it('refuses anything else, naming the field and what it got', () => {
    expect(() => querySeverityRank('urgent')).toThrow(
      'minSeverity: expected one of informational, low, medium, high, critical, got "urgent"',
    );
    expect(() => querySeverityRank(3, 'severity')).toThrow(ValidationError);
    expect(() => querySeverityRank(3, 'severity')).toThrow('severity: expected one of');
  });
});
