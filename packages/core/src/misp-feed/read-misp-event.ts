import { InvalidIndicatorError } from '../errors/invalid-indicator-error.js';
import type { IndicatorType, IndicatorTypeName } from '../indicators/index.js';
import { parseIndicator } from '../indicators/parse-indicator.js';
import type { MatcherRule } from '../lists/indicator-matcher.js';
import { cidrRule } from '../lists/list-entry.js';
import { hostRule, type LocalListMatchMode } from '../lists/local-list.js';
import { quoteForDisplay } from '../text/control-characters.js';
import { SkipTally } from './feed-skips.js';
import { attributeParts, defaultToIds, REFERENCE_ATTRIBUTE_TYPES } from './misp-attribute-values.js';
import { jsonFault, secondsOf } from './read-misp-manifest.js';

/** What evidence says about the event an attribute came from; one object shared by all its attributes. */
interface MispEventSummary {
  /** The event's UUID, as the manifest names it. */
  readonly uuid: string;
  /** Its `info` (title), at most 200 characters. */
  readonly info: string;
  /** The name of the organisation that made it (`Orgc`). */
  readonly org?: string;
  /** Its `date` (YYYY-MM-DD). */
  readonly date?: string;
  /** Its tags' names, at most 20. */
  readonly tags: readonly string[];
  /** `urn:uuid:<event UUID>`, then the http(s) URLs of its `link` attributes (at most 10). */
  readonly references: readonly string[];
}

/** What a list entry made from a MISP attribute keeps for evidence. */
export interface MispAttributeEvidence {
  readonly event: MispEventSummary;
  /** The attribute's MISP type (`ip-dst`, `domain|ip`, …). */
  readonly type: string;
  /** Its MISP category (`Network activity`, …). */
  readonly category?: string;
  /** Its comment, at most 200 characters. */
  readonly comment?: string;
  /** The name of the MISP object it belongs to (`domain-ip`, `file`), when it is an object's attribute. */
  readonly object?: string;
  /** Its own tags' names, at most 10. */
  readonly tags: readonly string[];
  /** ISO 8601: its `first_seen`. */
  readonly firstSeen?: string;
  /** ISO 8601: its `last_seen`, else its `timestamp` (when its producer last changed it). */
  readonly lastSeen?: string;
  /** False when the attribute says `disable_correlation`: it is still an entry (see the README), and evidence says so. */
  readonly correlates: boolean;
}

/** Options of {@link readMispEvent}. */
export interface ReadMispEventOptions {
  /** Only attributes with `to_ids` set become entries. */
  readonly toIdsOnly: boolean;
  /** How entries match, as for a local list. */
  readonly match: LocalListMatchMode;
}

/** An event read from its file: its summary, its entries, and the attributes skipped. */
export interface ReadMispEventResult {
  readonly summary: MispEventSummary;
  readonly rules: readonly MatcherRule<MispAttributeEvidence>[];
  readonly skips: SkipTally;
}

const IP_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6'];
const IP_HOST_TYPES: readonly IndicatorType[] = ['ipv4', 'ipv6', 'url'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_EVENT_TAGS = 20;
const MAX_ATTRIBUTE_TAGS = 10;
const MAX_LINKS = 10;

type Json = Record<string, unknown>;

/**
 * Reads one event file of a MISP feed (`{"Event": {...}}`, also wrapped as MISP's API answers it, `{"response":
 * [...]}` or `[...]`, as MISP/MISP app/Model/Feed.php `__prepareEvent` accepts) into list entries: each attribute of
 * the event and of its objects, of a type threatlib looks up, becomes one entry per part (both parts of `domain|ip`,
 * the hash of `filename|md5`, …). Attributes skipped are counted by reason: `to_ids` unset (with `toIdsOnly`),
 * deleted (the attribute or its object), a type threatlib does not look up, a value that is not a valid indicator of
 * its type, an attribute of the wrong shape.
 *
 * @returns the event, or why the file is not one (it is then skipped whole).
 */
export function readMispEvent(
  text: string,
  expectedUuid: string,
  options: ReadMispEventOptions,
): ReadMispEventResult | { problem: string } {
  const fault = jsonFault(text);
  if (fault) return { problem: `the event file ${fault}` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `the event file is not JSON (${(error as Error).message})` };
  }
  const event = unwrap(json);
  if (event === undefined) return { problem: 'the event file holds no {"Event": {...}} with a uuid' };
  if (String(event.uuid).toLowerCase() !== expectedUuid.toLowerCase()) {
    return {
      problem: `the event file is event ${quoteForDisplay(String(event.uuid), 60)}, not the one the manifest names`,
    };
  }

  const references: string[] = [`urn:uuid:${expectedUuid.toLowerCase()}`];
  const orgc = objectOf(event.Orgc) ?? objectOf(event.orgc);
  const summary: MispEventSummary = {
    uuid: expectedUuid,
    info: typeof event.info === 'string' ? cut(event.info, 200) : '',
    ...(typeof orgc?.name === 'string' && orgc.name !== '' ? { org: cut(orgc.name, 100) } : {}),
    ...(typeof event.date === 'string' && DATE.test(event.date) ? { date: event.date } : {}),
    tags: tagNames(event.Tag, MAX_EVENT_TAGS),
    references,
  };

  const skips = new SkipTally();
  const rules: MatcherRule<MispAttributeEvidence>[] = [];
  const read = (attribute: unknown, where: string, object: Json | undefined) => {
    readAttribute(attribute, where, object, summary, options, { rules, skips, references });
  };
  const attributes = event.Attribute;
  if (Array.isArray(attributes)) {
    for (const [i, a] of attributes.entries()) read(a, `Attribute[${i}]`, undefined);
  } else if (attributes !== undefined && attributes !== null) {
    skips.add('Attribute is not a list', { event: expectedUuid });
  }
  const objects = event.Object;
  if (Array.isArray(objects)) {
    objects.forEach((value, i) => {
      const object = objectOf(value);
      const list = object?.Attribute;
      if (object === undefined || (list !== undefined && list !== null && !Array.isArray(list))) {
        skips.add('not a MISP object', { event: expectedUuid, attribute: `Object[${i}]` });
        return;
      }
      if (!Array.isArray(list)) return;
      for (const [j, a] of list.entries()) read(a, `Object[${i}].Attribute[${j}]`, object);
    });
  } else if (objects !== undefined && objects !== null) {
    skips.add('Object is not a list', { event: expectedUuid });
  }
  return { summary, rules, skips };
}

function readAttribute(
  value: unknown,
  where: string,
  object: Json | undefined,
  event: MispEventSummary,
  options: ReadMispEventOptions,
  out: { rules: MatcherRule<MispAttributeEvidence>[]; skips: SkipTally; references: string[] },
): void {
  const attribute = objectOf(value);
  const skip = (reason: string, detail?: string, type?: string) =>
    out.skips.add(
      reason,
      { event: event.uuid, attribute: type === undefined ? where : `${where} (${quoteForDisplay(type, 40)})` },
      detail,
    );
  if (attribute === undefined || typeof attribute.type !== 'string') {
    skip('not a MISP attribute', 'expected an object with a string type');
    return;
  }
  const type = attribute.type;
  if (typeof attribute.value !== 'string') {
    skip('not a MISP attribute', `its value is ${attribute.value === null ? 'null' : typeof attribute.value}`, type);
    return;
  }
  if (truthy(attribute.deleted) || truthy(object?.deleted)) {
    skip('deleted', undefined, type);
    return;
  }
  const flag =
    attribute.to_ids === undefined || attribute.to_ids === null ? defaultToIds(type) : toBoolean(attribute.to_ids);
  if (flag === undefined) {
    skip('not a MISP attribute', `to_ids is ${quoteForDisplay(String(attribute.to_ids), 20)}, not true or false`, type);
    return;
  }
  if (REFERENCE_ATTRIBUTE_TYPES.has(type)) {
    // A link is a page about the event; it is an entry only when its producer asks for detection on it.
    if (/^https?:\/\//i.test(attribute.value) && out.references.length <= MAX_LINKS) {
      out.references.push(attribute.value.slice(0, 2048));
    }
    if (!flag) return;
  } else if (options.toIdsOnly && !flag) {
    skip('to_ids is false', undefined, type);
    return;
  }
  const parts = attributeParts(type, attribute.value);
  if (!Array.isArray(parts)) {
    skip('type threatlib does not look up', parts.reason, type);
    return;
  }
  const evidence = evidenceOf(attribute, type, object, event);
  for (const part of parts) {
    const result = partRule(part.text, part.types, options.match, evidence);
    if ('reason' in result) skip('not a valid indicator', `${quoteForDisplay(part.text, 60)} ${result.reason}`, type);
    else out.rules.push(result);
  }
}

/** The rule for one part of an attribute's value, parsed as one of `types`. */
function partRule(
  text: string,
  types: readonly IndicatorType[],
  match: LocalListMatchMode,
  evidence: MispAttributeEvidence,
): MatcherRule<MispAttributeEvidence> | { reason: string } {
  const ip = types.includes('ipv4');
  // MISP's ip-src and ip-dst take a CIDR block too (MispAttribute::validateAttributeValue).
  if (ip && text.includes('/')) {
    const rule = cidrRule(text, match === 'host' ? IP_HOST_TYPES : IP_TYPES, evidence);
    return rule.ok ? rule.rule : { reason: rule.reason };
  }
  const typeName: IndicatorTypeName | undefined = ip ? 'ip' : types.length === 1 ? types[0] : undefined;
  let parsed: { type: IndicatorType; value: string };
  try {
    parsed = parseIndicator(text, typeName);
  } catch (error) {
    if (InvalidIndicatorError.isInstance(error)) return { reason: error.reason };
    throw error;
  }
  if (!types.includes(parsed.type)) return { reason: `is ${parsed.type}, not ${types.join(' or ')}` };
  const host = match === 'host' ? hostRule(parsed.value, parsed.type, evidence) : undefined;
  return host ?? { kind: 'exact', value: parsed.value, types: [parsed.type], entry: parsed.value, tag: evidence };
}

function evidenceOf(
  attribute: Json,
  type: string,
  object: Json | undefined,
  event: MispEventSummary,
): MispAttributeEvidence {
  const comment =
    typeof attribute.comment === 'string' && attribute.comment !== '' ? cut(attribute.comment, 200) : undefined;
  const firstSeen = isoOf(attribute.first_seen);
  const lastSeen = isoOf(attribute.last_seen) ?? epochIso(attribute.timestamp);
  return {
    event,
    type,
    ...(typeof attribute.category === 'string' && attribute.category !== ''
      ? { category: cut(attribute.category, 60) }
      : {}),
    ...(comment === undefined ? {} : { comment }),
    ...(typeof object?.name === 'string' && object.name !== '' ? { object: cut(object.name, 60) } : {}),
    tags: tagNames(attribute.Tag, MAX_ATTRIBUTE_TAGS),
    ...(firstSeen === undefined ? {} : { firstSeen }),
    ...(lastSeen === undefined ? {} : { lastSeen }),
    correlates: !truthy(attribute.disable_correlation),
  };
}

/** The event object of an event file, in any of the wrappings MISP's feed reader accepts. */
function unwrap(json: unknown): Json | undefined {
  let value = json;
  const wrapper = objectOf(value);
  if (wrapper !== undefined && 'response' in wrapper) value = wrapper.response;
  if (Array.isArray(value)) value = value[0];
  const event = objectOf(objectOf(value)?.Event);
  return typeof event?.uuid === 'string' ? event : undefined;
}

function objectOf(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function tagNames(value: unknown, max: number): string[] {
  if (!Array.isArray(value)) return [];
  const names: string[] = [];
  for (const tag of value) {
    if (names.length >= max) break;
    const name = objectOf(tag)?.name;
    if (typeof name === 'string' && name.trim() !== '') names.push(cut(name.trim(), 100));
  }
  return names;
}

/** MISP writes flags as JSON booleans; older exports as 0/1 or "0"/"1". */
function toBoolean(value: unknown): boolean | undefined {
  if (value === true || value === 1 || value === '1' || value === 'true') return true;
  if (value === false || value === 0 || value === '0' || value === 'false') return false;
  return undefined;
}

function truthy(value: unknown): boolean {
  return toBoolean(value) === true;
}

function isoOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  const time = Date.parse(value);
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
}

function epochIso(value: unknown): string | undefined {
  const seconds = secondsOf(value);
  return seconds === undefined || seconds > 253_402_300_799 ? undefined : new Date(seconds * 1000).toISOString();
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
