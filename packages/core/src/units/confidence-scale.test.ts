import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { confidenceProblem, confidenceSchema } from './confidence-scale.js';

describe('confidenceProblem', () => {
  it('refuses a 0..1 fraction on the 0..100 scale and says what it would be', () => {
    expect(confidenceProblem(0.9)).toBe('confidence is 0..100; got 0.9 (did you mean 90?)');
    expect(confidenceProblem(0.85)).toBe('confidence is 0..100; got 0.85 (did you mean 85?)');
    expect(confidenceProblem(0.07)).toBe('confidence is 0..100; got 0.07 (did you mean 7?)');
    expect(confidenceProblem(0.5999999999994543)).toBe(
      'confidence is 0..100; got 0.5999999999994543 (did you mean 60?)',
    );
    expect(confidenceProblem(0.8, 'minConfidence')).toBe('minConfidence is 0..100; got 0.8 (did you mean 80?)');
  });

  it('takes 0, 1 (1 %), whole percentages and fractions from 1 up (45.5)', () => {
    for (const value of [0, 1, 1.5, 45.5, 83.2, 100]) expect(confidenceProblem(value)).toBeUndefined();
  });

  it('refuses what is not a number from 0 to 100, saying what it got', () => {
    expect(confidenceProblem(150)).toBe('confidence is 0..100; got 150');
    expect(confidenceProblem(-1)).toBe('confidence is 0..100; got -1');
    expect(confidenceProblem(Number.NaN)).toBe('confidence is 0..100; got NaN');
    expect(confidenceProblem('90')).toBe('confidence is 0..100; got "90"');
    expect(confidenceProblem(undefined)).toBe('confidence is 0..100; got nothing');
  });

  it('as a zod schema: the same refusals, and its JSON Schema states the range and the refused fractions', () => {
    const schema = z.strictObject({ minConfidence: confidenceSchema('minConfidence') });
    expect(schema.safeParse({ minConfidence: 0.8 }).error?.issues[0]?.message).toBe(
      'minConfidence is 0..100; got 0.8 (did you mean 80?)',
    );
    expect(schema.safeParse({ minConfidence: 101 }).error?.issues[0]?.message).toBe('minConfidence is 0..100; got 101');
    expect(schema.parse({ minConfidence: 1 })).toEqual({ minConfidence: 1 });
    expect(z.toJSONSchema(schema).properties?.minConfidence).toMatchObject({
      type: 'number',
      minimum: 0,
      maximum: 100,
      anyOf: [{ const: 0 }, { minimum: 1, maximum: 100 }],
    });
    expect(JSON.stringify(z.toJSONSchema(schema))).not.toContain('"not"');
  });
});
