import { checkJsonStructure, type JsonStructureFault } from '@threatlib/core/integration';
import type { FastifyRequest } from 'fastify';
import { parse as secureJsonParse } from 'secure-json-parse';
import { PROBLEM_TYPES, type Problem, ProblemError } from './problem.js';

/** The deepest nesting of arrays and objects a request body may have unless the server is told otherwise. */
export const DEFAULT_JSON_DEPTH_LIMIT = 32;

type Done = (error: Error | null, body?: unknown) => void;

/**
 * The server's `application/json` body parser. Before parsing, one pass over the text refuses a body nested deeper
 * than `maxDepth` (anything walking a deep value recursively, such as a validation schema, would overflow the
 * stack: a 500 instead of a 400) and an object with the same key twice (`JSON.parse` keeps the last one silently,
 * so what was validated may not be what the sender meant). Then secure-json-parse refuses a `"__proto__"` key
 * (prototype pollution); a `"constructor"` key is kept, as `JSON.parse` makes it a plain data property and alert
 * metadata must not lose it. Every refusal is a 400 problem saying why.
 */
export function jsonBodyParser(options: { maxDepth: number }) {
  return (_request: FastifyRequest, body: string | Buffer, done: Done): void => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const fault = checkJsonStructure(text, options.maxDepth);
    if (fault) {
      done(problemError(structureProblem(fault)));
      return;
    }
    let value: unknown;
    try {
      value = secureJsonParse(text, { protoAction: 'error', constructorAction: 'ignore' });
    } catch (error) {
      const proto = error instanceof SyntaxError && /prototype property/.test(error.message);
      done(
        problemError(
          proto
            ? {
                type: PROBLEM_TYPES.validation,
                title: 'Request validation failed',
                status: 400,
                detail: 'the request body has a "__proto__" key, which is refused (prototype pollution); rename it',
              }
            : {
                type: PROBLEM_TYPES.malformedJson,
                title: 'Malformed JSON',
                status: 400,
                detail: text === '' ? 'the request body is empty' : 'the request body is not valid JSON',
              },
        ),
      );
      return;
    }
    done(null, value);
  };
}

function structureProblem(fault: JsonStructureFault): Problem {
  const path = describePath(fault.path);
  if (fault.kind === 'too-deep') {
    return {
      type: PROBLEM_TYPES.validation,
      title: 'Request validation failed',
      status: 400,
      detail: `the request body is nested deeper than ${fault.limit} levels of arrays and objects (at ${path || 'the top'})`,
      errors: [{ path, message: `nested deeper than ${fault.limit} levels` }],
    };
  }
  const key = JSON.stringify(shorten(fault.key));
  return {
    type: PROBLEM_TYPES.validation,
    title: 'Request validation failed',
    status: 400,
    detail: `the request body has the key ${key} twice in one object${path ? ` (at ${path})` : ''}; keys must be unique`,
    errors: [{ path, message: `the key ${key} appears twice` }],
  };
}

/** A path as the validation problems write it (`metadata.tags.1`), each key cut short, the whole bounded. */
function describePath(path: ReadonlyArray<string | number>): string {
  return shorten(path.map((part) => (typeof part === 'number' ? String(part) : shorten(part, 40))).join('.'), 400);
}

function shorten(text: string, max = 100): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function problemError(problem: Problem): ProblemError {
  return Object.assign(new ProblemError(problem), { statusCode: problem.status });
}
