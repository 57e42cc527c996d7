import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type DurationBounds, durationProblem, durationSchema } from './duration-unit.js';

const ttl: DurationBounds = { name: 'ttl', unit: 'seconds', min: 1, max: 31_536_000 };
const windowMs: DurationBounds = { name: 'windowMs', unit: 'milliseconds', min: 1_000, max: 86_400_000, integer: true };

describe('durationProblem', () => {
  it('milliseconds given for seconds: says the unit and what was probably meant', () => {
    expect(durationProblem(86_400_000, ttl)).toBe(
      'ttl is in seconds, at most 31536000 (365 days); got 86400000 (did you mean 86400?)',
    );
    // No hint that would itself be refused.
    expect(durationProblem(1e15, ttl)).toBe('ttl is in seconds, at most 31536000 (365 days); got 1000000000000000');
    expect(durationProblem(31_536_001, ttl)).toBe('ttl is in seconds, at most 31536000 (365 days); got 31536001');
    expect(durationProblem(86_400, ttl)).toBeUndefined();
  });

  it('seconds given for milliseconds, and a text where a number is expected', () => {
    expect(durationProblem(900, windowMs)).toBe(
      'windowMs is in milliseconds, at least 1000; got 900 (did you mean 900000?)',
    );
    expect(durationProblem('15m', windowMs)).toBe(
      'windowMs is a number of milliseconds, not a text; got "15m" (did you mean 900000?)',
    );
    expect(durationProblem('1 h', windowMs)).toMatch(/\(did you mean 3600000\?\)$/);
    expect(durationProblem('60000', windowMs)).toMatch(/\(did you mean 60000\?\)$/);
    expect(durationProblem('soon', windowMs)).toBe('windowMs is a number of milliseconds, not a text; got "soon"');
    expect(durationProblem('2d', ttl)).toMatch(/got "2d" \(did you mean 172800\?\)$/);
  });

  it('whole numbers, 0 where it turns something off, and what is no number', () => {
    expect(durationProblem(1_500.5, windowMs)).toBe('windowMs is a whole number of milliseconds; got 1500.5');
    const timeout: DurationBounds = {
      name: 'requestTimeout',
      unit: 'milliseconds',
      min: 100,
      max: 600_000,
      zeroAllowed: true,
    };
    expect(durationProblem(0, timeout)).toBeUndefined();
    expect(durationProblem(30, timeout)).toBe(
      'requestTimeout is in milliseconds, at least 100 (or 0 to turn it off); got 30 (did you mean 30000?)',
    );
    expect(durationProblem(null, windowMs)).toBe(
      'windowMs is a number of milliseconds, from 1000 to 86400000; got null',
    );
  });

  it('as a zod schema: the same messages, the bounds in its JSON Schema', () => {
    const schema = z.strictObject({ windowMs: durationSchema(windowMs) });
    expect(schema.safeParse({ windowMs: '15m' }).error?.issues[0]?.message).toMatch(/did you mean 900000\?/);
    expect(schema.safeParse({ windowMs: 900 }).error?.issues[0]?.message).toMatch(/did you mean 900000\?/);
    expect(schema.parse({ windowMs: 900_000 })).toEqual({ windowMs: 900_000 });
    expect(z.toJSONSchema(schema).properties?.windowMs).toMatchObject({
      type: 'integer',
      minimum: 1000,
      maximum: 86400000,
    });
  });
});
