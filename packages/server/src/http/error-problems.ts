import { InvalidIndicatorError, ThreatlibError, ValidationError } from '@threatlib/core';
import type { FastifyError } from 'fastify';
import { PROBLEM_TYPES, type Problem, ProblemError } from './problem.js';

/** The problem a threatlib error means, or undefined for anything else. */
export function problemFor(error: unknown): Problem | undefined {
  if (InvalidIndicatorError.isInstance(error)) {
    return { type: PROBLEM_TYPES.invalidIndicator, title: 'Invalid indicator', status: 400, detail: error.message };
  }
  if (ValidationError.isInstance(error)) {
    return {
      type: PROBLEM_TYPES.validation,
      title: 'Request validation failed',
      status: 400,
      detail: error.message,
      errors: [...error.issues],
    };
  }
  if (ThreatlibError.isInstance(error) && error.code === 'VAULT_LOCKED') {
    return {
      type: PROBLEM_TYPES.vaultLocked,
      title: 'Vault locked',
      status: 503,
      detail: 'the API key vault is locked',
    };
  }
  return undefined;
}

/** Fastify's own request errors (malformed JSON, body too large, wrong media type) as problems. */
export function fastifyProblem(error: FastifyError): Problem | undefined {
  if (error instanceof ProblemError) return error.problem;
  const withProblem = error as FastifyError & { problem?: Problem };
  if (withProblem.problem) return withProblem.problem;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return {
        type: PROBLEM_TYPES.malformedJson,
        title: 'Malformed JSON',
        status: 400,
        detail: 'the request body is not valid JSON',
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        type: PROBLEM_TYPES.malformedJson,
        title: 'Malformed JSON',
        status: 400,
        detail: 'the request body is not valid JSON',
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { type: PROBLEM_TYPES.payloadTooLarge, title: 'Payload too large', status: 413, detail: error.message };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        type: PROBLEM_TYPES.malformedRequest,
        title: 'Malformed request',
        status: 400,
        detail: 'the body is not as long as its Content-Length says',
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        type: PROBLEM_TYPES.unsupportedMediaType,
        title: 'Unsupported media type',
        status: 415,
        detail: 'send application/json',
      };
    default:
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return {
          type: PROBLEM_TYPES.validation,
          title: 'Bad request',
          status: error.statusCode,
          detail: error.message,
        };
      }
      return undefined;
  }
}
