import * as z from 'zod';
import { shownInput } from '../records/shown-input.js';

/**
 * Why `value` is not a confidence on the 0..100 scale, or undefined when it is one.
 *
 * 0 and 1 are confidences like any other (1 is 1 %), and so is a fraction from 1 up (`45.5`, `83.2`: what
 * `correlate` gives). A fraction strictly between 0 and 1 is refused: it is a 0..1 score given where a percentage is
 * expected (`0.9` would be taken as 0.9 %), and the message says what it would be on this scale. `name` is the
 * field's name in the message (`confidence`, `minConfidence`).
 *
 * @example
 * ```ts
 * confidenceProblem(90); // undefined
 * confidenceProblem(0.9); // 'confidence is 0..100; got 0.9 (did you mean 90?)'
 * confidenceProblem(150); // 'confidence is 0..100; got 150'
 * ```
 */
export function confidenceProblem(value: unknown, name = 'confidence'): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    return `${name} is 0..100; got ${shownInput(value)}`;
  }
  if (value > 0 && value < 1) return `${name} is 0..100; got ${value} (did you mean ${asPercent(value)}?)`;
  return undefined;
}

/**
 * A zod schema of a confidence on the 0..100 scale, refusing what {@link confidenceProblem} refuses with its message.
 * Its JSON Schema states the range and the refused fractions as "0, or 1 to 100" (`anyOf: [{const: 0}, {minimum: 1,
 * maximum: 100}]`), so an OpenAPI client (or fuzzer) knows them too; it has no `not`, which Swagger UI shows as
 * `never`.
 *
 * @example
 * ```ts
 * const Threshold = z.strictObject({ minConfidence: confidenceSchema('minConfidence').default(80) });
 * ```
 */
export function confidenceSchema(name = 'confidence') {
  const error = (issue: { input?: unknown }) => confidenceProblem(issue.input, name);
  return z
    .number({ error })
    .min(0, { error })
    .max(100, { error })
    .refine((value) => !(value > 0 && value < 1), { error })
    .meta({
      description: '0 to 100 (a percentage; a fraction between 0 and 1 is refused as a 0..1 score)',
      anyOf: [{ const: 0 }, { minimum: 1, maximum: 100 }],
    });
}

/** `fraction` × 100 without binary noise (0.07 → 7, not 7.000000000000001; 0.5999999999994543 → 60). */
function asPercent(fraction: number): number {
  return Number((fraction * 100).toPrecision(10));
}
