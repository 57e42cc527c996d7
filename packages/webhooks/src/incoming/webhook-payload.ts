import { checkJsonStructure } from '@threatlib/core/integration';
import { parse as secureJsonParse } from 'secure-json-parse';
import { payloadProblem, WEBHOOK_PROBLEM_TYPES } from './problem.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads a webhook body as JSON. Refused with a 400 problem saying why: bytes that are not UTF-8, text that is not
 * JSON, a `"__proto__"` key (secure-json-parse: a handler merging the data into an object would pollute its
 * prototype), nesting deeper than `maxDepth` arrays and objects (a handler or schema walking it recursively would
 * overflow the stack), an object that repeats a key (`JSON.parse` keeps the last without a word, where the sender's
 * or another reader's parser may keep the first). Depth and keys are checked in one pass over the text before it is
 * parsed (`checkJsonStructure`, the REST server's and the queue's check).
 *
 * @throws {ProblemError} 400.
 */
export function readJsonBody(body: Buffer, maxDepth: number): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw payloadProblem(WEBHOOK_PROBLEM_TYPES.malformedJson, 'Malformed JSON', 'the request body is not UTF-8');
  }
  const fault = checkJsonStructure(text, maxDepth);
  if (fault) {
    throw payloadProblem(
      WEBHOOK_PROBLEM_TYPES.validation,
      'Invalid payload',
      fault.kind === 'too-deep'
        ? `the payload is nested deeper than ${maxDepth} levels of arrays and objects`
        : `the payload repeats the key ${JSON.stringify(fault.key.length > 80 ? `${fault.key.slice(0, 80)}…` : fault.key)} in one object`,
    );
  }
  let value: unknown;
  try {
    value = secureJsonParse(text, { protoAction: 'error', constructorAction: 'ignore' });
  } catch (error) {
    if (error instanceof SyntaxError && /prototype property/.test(error.message)) {
      throw payloadProblem(
        WEBHOOK_PROBLEM_TYPES.validation,
        'Invalid payload',
        'the payload has a "__proto__" key, which is refused (prototype pollution)',
      );
    }
    throw payloadProblem(
      WEBHOOK_PROBLEM_TYPES.malformedJson,
      'Malformed JSON',
      text === '' ? 'the request body is empty' : 'the request body is not valid JSON',
    );
  }
  return value;
}

/** An event name: letters, digits and `.`, `_`, `:`, `-`, starting with a letter or digit, at most 100 characters. */
export const EVENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

/** What a webhook is about: its event (when the payload says) and what the handler gets. */
export interface WebhookMessage {
  /** The payload's `type`, when the payload is an object with a string `type`. */
  type: string | undefined;
  /** Whether the payload is a Standard Webhooks envelope `{type, timestamp?, data}` (its `type` names its event). */
  envelope: boolean;
  /** The envelope's `data`; else the whole payload. */
  data: unknown;
}

/**
 * Reads the Standard Webhooks payload shape (`{type, timestamp, data}`): an object with a string `type` and a `data`
 * member is an envelope, whose handler gets `data`; any other payload is handed over whole (an object's string
 * `type` may still name its event).
 */
export function webhookMessage(payload: unknown): WebhookMessage {
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const { type, data } = payload as { type?: unknown; data?: unknown };
    if (typeof type === 'string') {
      return Object.hasOwn(payload, 'data') ? { type, envelope: true, data } : { type, envelope: false, data: payload };
    }
  }
  return { type: undefined, envelope: false, data: payload };
}
