import { confidenceProblem } from '@threatlib/core/integration';
import { z } from 'zod';

/**
 * A threat record's `results`: the scan or correlation result, an object. Its `confidence`, when it has one, is on
 * the 0..100 scale the correlation gives, which `query(..., {'results.confidence': {$gte: 80}})` and the search index's
 * `confidence` field read: a 0..1 score there is refused ("did you mean 90?") rather than stored as 0.9 %.
 */
export const resultsSchema = z
  .record(z.string(), z.unknown(), { error: 'expected the scan or correlation result (an object)' })
  .superRefine((results, ctx) => {
    const { confidence } = results;
    if (confidence === undefined || confidence === null) return;
    const problem = confidenceProblem(confidence);
    if (problem !== undefined)
      ctx.addIssue({ code: 'custom', path: ['confidence'], message: problem, input: confidence });
  });
