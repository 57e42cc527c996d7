// How the emulated upload API checks one STIX object of a request's `stixobjects`, each problem in Sentinel's words
// (`Error for Property=id: Required property is missing. Actual value: NULL.`). Sources:
// - The upload API's common and indicator properties (required: id, type, created, modified; for an indicator
//   pattern, pattern_type, valid_from; spec_version 2.0 or 2.1, defaulting to 2.1; confidence 0-100; the domain
//   objects it supports): https://learn.microsoft.com/en-us/azure/sentinel/stix-objects-api
// - STIX 2.1 identifiers (`<type>--<UUID>`, 2.9), timestamps (RFC 3339 in UTC with a Z, 3.2), the indicator's
//   valid_until after valid_from (4.7), identity name, relationship relationship_type/source_ref/target_ref:
//   https://docs.oasis-open.org/cti/stix/v2.1/os/stix-v2.1-os.html
import { checkStixPattern } from './sentinel-stix-pattern.js';

/** The STIX domain and relationship objects the upload API takes. */
export const SENTINEL_STIX_TYPES = ['indicator', 'attack-pattern', 'threat-actor', 'identity', 'relationship'] as const;

const ID = /^([a-z][a-z0-9-]*)--[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-(0[1-9]|1[012])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?Z$/;

/** The problems of one object (empty when Sentinel would take it). */
export function stixObjectErrors(object: unknown): string[] {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) {
    return [`Error for Property=stixobject: The STIX object must be a JSON object. Actual value: ${shown(object)}.`];
  }
  const o = object as Record<string, unknown>;
  const errors: string[] = [];
  const problem = (property: string, reason: string) =>
    errors.push(`Error for Property=${property}: ${reason}. Actual value: ${shown(o[property])}.`);

  const type = o.type;
  if (type === undefined || type === null) problem('type', 'Required property is missing');
  else if (!(SENTINEL_STIX_TYPES as readonly unknown[]).includes(type)) {
    problem('type', `The STIX object type is not supported; supported types: ${SENTINEL_STIX_TYPES.join(', ')}`);
  }
  if (o.id === undefined || o.id === null) problem('id', 'Required property is missing');
  else if (typeof o.id !== 'string' || !ID.test(o.id)) problem('id', "The value must be '<type>--<UUID>'");
  else if (typeof type === 'string' && !o.id.startsWith(`${type}--`)) {
    problem('id', `The identifier must start with '${type}--'`);
  }
  if (o.spec_version !== undefined && o.spec_version !== '2.0' && o.spec_version !== '2.1') {
    problem('spec_version', "The value must be '2.0' or '2.1'");
  }
  timestamp(o, 'created', true, problem);
  timestamp(o, 'modified', true, problem);
  if (typeof o.created === 'string' && typeof o.modified === 'string' && o.modified < o.created) {
    problem('modified', "The value must not be earlier than 'created'");
  }
  if (o.revoked !== undefined && typeof o.revoked !== 'boolean') problem('revoked', 'The value must be a boolean');
  strings(o, 'labels', problem);
  if (o.confidence !== undefined) {
    const c = o.confidence;
    if (typeof c !== 'number' || !Number.isInteger(c) || c < 0 || c > 100) {
      problem('confidence', 'The value must be an integer from 0 to 100');
    }
  }
  if (o.lang !== undefined && typeof o.lang !== 'string') problem('lang', 'The value must be a string');
  if (o.external_references !== undefined) {
    const refs = o.external_references;
    if (!Array.isArray(refs) || refs.some((r) => typeof r?.source_name !== 'string' || r.source_name === '')) {
      problem('external_references', "Each external reference must have a 'source_name'");
    }
  }
  if (o.object_marking_refs !== undefined) {
    const refs = o.object_marking_refs;
    if (!Array.isArray(refs) || refs.some((r) => typeof r !== 'string' || !r.startsWith('marking-definition--'))) {
      problem('object_marking_refs', "Each reference must be a 'marking-definition--<UUID>' identifier");
    }
  }

  if (type === 'indicator') {
    for (const name of ['name', 'description', 'pattern_version'] as const) {
      if (o[name] !== undefined && typeof o[name] !== 'string') problem(name, 'The value must be a string');
    }
    strings(o, 'indicator_types', problem);
    if (o.pattern === undefined || o.pattern === null) problem('pattern', 'Required property is missing');
    else if (typeof o.pattern !== 'string' || o.pattern.trim() === '')
      problem('pattern', 'The value must not be empty');
    if (o.pattern_type === undefined || o.pattern_type === null)
      problem('pattern_type', 'Required property is missing');
    else if (typeof o.pattern_type !== 'string' || o.pattern_type === '') {
      problem('pattern_type', 'The value must be a non-empty string');
    } else if (o.pattern_type === 'stix' && typeof o.pattern === 'string' && o.pattern.trim() !== '') {
      try {
        checkStixPattern(o.pattern);
      } catch (error) {
        problem('pattern', `The STIX pattern is invalid: ${(error as Error).message}`);
      }
    }
    timestamp(o, 'valid_from', true, problem);
    timestamp(o, 'valid_until', false, problem);
    if (typeof o.valid_from === 'string' && typeof o.valid_until === 'string' && o.valid_until <= o.valid_from) {
      problem('valid_until', "The value must be later than 'valid_from'");
    }
  } else if (type === 'identity' || type === 'threat-actor' || type === 'attack-pattern') {
    if (typeof o.name !== 'string' || o.name === '') problem('name', 'Required property is missing');
  } else if (type === 'relationship') {
    for (const name of ['relationship_type', 'source_ref', 'target_ref'] as const) {
      if (typeof o[name] !== 'string' || o[name] === '') problem(name, 'Required property is missing');
    }
  }
  return errors;
}

function timestamp(
  o: Record<string, unknown>,
  property: string,
  required: boolean,
  problem: (property: string, reason: string) => void,
): void {
  const value = o[property];
  if (value === undefined || value === null) {
    if (required) problem(property, 'Required property is missing');
    return;
  }
  if (typeof value !== 'string' || !TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
    problem(property, 'The value must be an RFC 3339 timestamp in UTC (YYYY-MM-DDTHH:mm:ss[.s+]Z)');
  }
}

function strings(o: Record<string, unknown>, property: string, problem: (p: string, r: string) => void): void {
  const value = o[property];
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    problem(property, 'The value must be a list of strings');
  }
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return 'NULL';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
