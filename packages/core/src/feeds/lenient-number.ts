import * as z from 'zod';

/**
 * A number as feeds really send it: a JSON number, or a string of digits (URLhaus sends most numbers as strings;
 * proxies and recorded bodies sometimes turn others into strings). Anything else fails with "expected a number".
 */
export const lenientNumber = z.union([
  z.number(),
  z
    .string()
    .regex(/^\s*-?\d+(\.\d+)?\s*$/, 'expected a number')
    .transform(Number),
]);
