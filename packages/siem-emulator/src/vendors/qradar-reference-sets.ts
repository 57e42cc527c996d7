// The reference set endpoints: create and list sets, read one (with a `value = "..."` filter), add one element,
// and bulk load elements into a namespace and domain; each element checked against the set's element type.
import { isIP } from 'node:net';
import type { EmulatorRequest, EmulatorResponse } from '../vendor.js';
import { notFound, qradarError } from './qradar-api.js';
import type { QradarState, ReferenceSet } from './qradar-state.js';

const ELEMENT_TYPES = new Set(['ALN', 'ALNIC', 'NUM', 'IP', 'PORT', 'DATE']);
const TIMEOUT_TYPES = new Set(['UNKNOWN', 'FIRST_SEEN', 'LAST_SEEN']);

function setInfo(set: ReferenceSet) {
  return {
    collection_id: set.collection_id,
    creation_time: set.creation_time,
    element_type: set.element_type,
    name: set.name,
    namespace: 'SHARED',
    number_of_elements: set.elements.size,
    ...(set.time_to_live === undefined ? {} : { time_to_live: set.time_to_live }),
    timeout_type: set.timeout_type,
  };
}

/** Why `value` cannot be an element of `set`, or undefined. */
function elementProblem(set: ReferenceSet, value: string): string | undefined {
  if (value === '') return 'The value must not be empty';
  switch (set.element_type) {
    case 'IP':
      return isIP(value) ? undefined : `${value} is not a valid IP address`;
    case 'NUM':
    case 'DATE':
      return /^-?\d+(\.\d+)?$/.test(value) ? undefined : `${value} is not a valid number`;
    case 'PORT':
      return /^\d+$/.test(value) && Number(value) <= 65_535 ? undefined : `${value} is not a valid port`;
    default:
      return undefined;
  }
}

function addElement(set: ReferenceSet, value: string, source: string, domain: number | null) {
  const key = set.element_type === 'ALNIC' ? value.toLowerCase() : value;
  const now = Date.now();
  const existing = set.elements.get(key);
  if (existing) {
    existing.last_seen = now;
    existing.source = source;
  } else {
    set.elements.set(key, { value, source, first_seen: now, last_seen: now, domain_id: domain });
  }
}

/** `/api/reference_data/sets/...`: `segments` are the path segments after `sets`. */
export function handleReferenceSets(
  state: QradarState,
  request: EmulatorRequest,
  segments: string[],
): EmulatorResponse {
  // segments after /api/reference_data/sets
  if (segments.length === 0) {
    if (request.method !== 'POST' && request.method !== 'GET') return qradarError(405, 0, 'Method not allowed');
    if (request.method === 'GET') return { status: 200, body: [...state.sets.values()].map(setInfo) };
    const name = request.query.get('name');
    const elementType = request.query.get('element_type');
    if (!name)
      return qradarError(
        422,
        1005,
        'Missing required parameter "name" from query parameters',
        'A request parameter is not valid',
      );
    if (!elementType || !ELEMENT_TYPES.has(elementType)) {
      return qradarError(
        422,
        1005,
        `element_type must be one of ALN, ALNIC, NUM, IP, PORT, DATE; got ${JSON.stringify(elementType ?? '')}`,
        'A request parameter is not valid',
      );
    }
    const timeoutType = request.query.get('timeout_type') ?? 'UNKNOWN';
    if (!TIMEOUT_TYPES.has(timeoutType)) {
      return qradarError(
        422,
        1005,
        `timeout_type must be FIRST_SEEN, LAST_SEEN or UNKNOWN`,
        'A request parameter is not valid',
      );
    }
    if (state.sets.has(name)) {
      return qradarError(
        409,
        1004,
        `The reference set ${name} already exists`,
        'The reference set could not be created, the name provided is already in use. Please change the name and try again.',
      );
    }
    const set: ReferenceSet = {
      name,
      element_type: elementType,
      timeout_type: timeoutType,
      time_to_live: request.query.get('time_to_live') ?? undefined,
      creation_time: Date.now(),
      collection_id: state.nextId(),
      elements: new Map(),
    };
    state.sets.set(name, set);
    return { status: 201, body: setInfo(set) };
  }
  if (segments[0] === 'bulk_load') {
    if (segments.length === 2) {
      return qradarError(
        410,
        0,
        'POST /reference_data/sets/bulk_load/{name} has been removed; use /reference_data/sets/bulk_load/{namespace}/{name}/{domain_id}',
      );
    }
    if (segments.length !== 4) return notFound();
    if (request.method !== 'POST') return qradarError(405, 0, 'Method not allowed');
    const [, namespace, name, domain] = segments as [string, string, string, string];
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase();
    if (type !== 'application/json') {
      return qradarError(415, 1009, `Content-Type ${type || '(none)'} is not supported: send application/json`);
    }
    let data: unknown;
    try {
      data = JSON.parse(request.body);
    } catch {
      return qradarError(
        400,
        1001,
        'The message body is not valid JSON',
        'An error occurred parsing the JSON formatted message body',
      );
    }
    if (!Array.isArray(data) || data.some((v) => typeof v !== 'string')) {
      return qradarError(
        400,
        1001,
        'Expected a JSON array of strings',
        'An error occurred parsing the JSON formatted message body',
      );
    }
    if (namespace !== 'SHARED' && namespace !== 'TENANT') {
      return qradarError(
        422,
        1015,
        `Namespace ${namespace} is not valid`,
        'The namespace parameter must be either SHARED or TENANT',
      );
    }
    if (namespace === 'TENANT') {
      return qradarError(422, 1012, 'This QRadar has no tenants', 'The namespace value of SHARED was expected');
    }
    let domainId: number | null = null;
    if (domain !== 'SHARED') {
      if (!/^\d+$/.test(domain))
        return qradarError(
          422,
          1014,
          `domain_id ${domain} is not a number or SHARED`,
          'The domain_id parameter must be specified',
        );
      if (!state.domains.has(Number(domain)))
        return qradarError(404, 1011, `Domain ${domain} not found`, 'Domain not found');
      domainId = Number(domain);
    }
    const set = state.sets.get(name);
    if (!set) return qradarError(404, 1002, `${name} does not exist`, 'The reference set does not exist');
    for (const value of data as string[]) {
      const problem = elementProblem(set, value);
      if (problem) return qradarError(422, 1005, problem, 'A request parameter is not valid');
    }
    for (const value of data as string[]) addElement(set, value, 'reference data api', domainId);
    return { status: 200, body: setInfo(set) };
  }
  if (segments.length !== 1) return notFound();
  const name = segments[0] as string;
  const set = state.sets.get(name);
  if (request.method === 'GET') {
    if (!set) return qradarError(404, 1002, `${name} does not exist`, 'The reference set does not exist.');
    const filter = request.query.get('filter');
    let elements = [...set.elements.values()];
    if (filter !== null) {
      const wanted = parseValueFilter(filter);
      if (wanted === undefined) {
        return qradarError(
          422,
          1005,
          `The filter ${JSON.stringify(filter)} could not be parsed`,
          'A request parameter is not valid',
        );
      }
      elements = elements.filter((e) =>
        set.element_type === 'ALNIC' ? e.value.toLowerCase() === wanted.toLowerCase() : e.value === wanted,
      );
    }
    return { status: 200, body: { ...setInfo(set), data: elements.slice(0, 20) } };
  }
  if (request.method !== 'POST') return qradarError(405, 0, 'Method not allowed');
  if (!set) return qradarError(404, 1002, `${name} does not exist`, 'The reference set does not exist');
  const value = request.query.get('value');
  if (value === null) {
    return qradarError(
      422,
      1005,
      'Missing required parameter "value" from query parameters',
      'A request parameter is not valid',
    );
  }
  const problem = elementProblem(set, value);
  if (problem) return qradarError(422, 1005, problem, 'A request parameter is not valid');
  addElement(set, value, request.query.get('source') ?? 'reference data api', null);
  return { status: 200, body: setInfo(set) };
}

/** The value of a `value = "..."` (or `'...'`) filter, `\` escaping the quote and itself; undefined otherwise. */
function parseValueFilter(filter: string): string | undefined {
  const match = /^\s*value\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*$/.exec(filter);
  if (!match) return undefined;
  return (match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1');
}
