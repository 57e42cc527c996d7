import { parseStixTimestamp } from '@threatlib/core/integration';
import { TaxiiError } from './taxii-error.js';

/** The `match[<field>]` filters of TAXII 2.1 (section 3.5.1). */
export type MatchField = 'id' | 'type' | 'version' | 'spec_version';

/** Which versions of each object a query selects (`match[version]`): `first`, `last`, `all` and exact versions. */
interface VersionSelector {
  readonly all: boolean;
  readonly first: boolean;
  readonly last: boolean;
  /** Exact versions, in microseconds. */
  readonly at: ReadonlySet<number>;
}

/** A TAXII request's filters and paging, checked. */
export interface TaxiiQuery {
  /** `added_after`, in microseconds. */
  readonly addedAfter?: number;
  readonly limit: number;
  readonly next?: string;
  readonly ids?: ReadonlySet<string>;
  readonly types?: ReadonlySet<string>;
  readonly versions: VersionSelector;
  readonly specVersions?: ReadonlySet<string>;
  /** The filters in a canonical form (sorted), which a `next` cursor is bound to; `limit` is not part of it. */
  readonly canonical: readonly unknown[];
}

/** Most values one `match[...]` takes (comma-separated, repeated parameters included). */
const MAX_MATCH_VALUES = 100;
// STIX 2.1 section 2.9: a type is 3 to 250 characters of lower-case letters, digits and hyphens, starting with a letter
// or digit and not ending with a hyphen; an identifier is `<type>--<UUID>`.
const STIX_TYPE = /^[a-z0-9][a-z0-9-]{1,248}[a-z0-9]$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SPEC_VERSION = /^\d\.\d$/;
const WHOLE = /^\d{1,9}$/;

/** Whether `id` is a STIX identifier (`<type>--<UUID>`). */
export function isStixId(id: unknown): id is string {
  if (typeof id !== 'string' || id.length > 300) return false;
  const at = id.indexOf('--');
  return at > 0 && STIX_TYPE.test(id.slice(0, at)) && UUID.test(id.slice(at + 2));
}

/** Whether `type` is a STIX object type. */
export function isStixType(type: unknown): type is string {
  return typeof type === 'string' && STIX_TYPE.test(type);
}

/**
 * Reads a TAXII request's query: `added_after`, `limit`, `next` and the `match[...]` filters `allowed` on this
 * endpoint. Unknown parameters are ignored, except `match[...]` fields the endpoint does not filter on, which are
 * refused (filtering silently on less than asked would hand back objects the client did not want).
 *
 * @throws {TaxiiError} 400 naming the parameter and what was wrong: a timestamp that is not one, a limit that is not a
 *   positive whole number, a scalar parameter given twice, a match value of the wrong form, too many match values.
 */
export function parseTaxiiQuery(
  raw: unknown,
  allowed: readonly MatchField[],
  options: { defaultLimit: number; maxLimit: number; defaultVersion: 'last' | 'all' },
): TaxiiQuery {
  const params = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, string | string[] | undefined>;
  const single = (name: string): string | undefined => {
    const value = params[name];
    if (Array.isArray(value)) throw bad(`${name} is given ${value.length} times; give it once`);
    return value;
  };
  const addedAfterText = single('added_after');
  const addedAfter = addedAfterText === undefined ? undefined : parseStixTimestamp(addedAfterText);
  if (addedAfterText !== undefined && addedAfter === undefined) {
    throw bad('added_after is not a TAXII timestamp (YYYY-MM-DDTHH:mm:ss[.s+]Z, in UTC)');
  }
  const limitText = single('limit');
  if (limitText !== undefined && (!WHOLE.test(limitText) || Number(limitText) < 1)) {
    throw bad('limit is not a whole number of 1 or more');
  }
  const limit = Math.min(limitText === undefined ? options.defaultLimit : Number(limitText), options.maxLimit);
  const next = single('next');
  if (next !== undefined && (next === '' || next.length > 1024))
    throw bad('next is empty or longer than 1024 characters');

  for (const name of Object.keys(params)) {
    if (!name.startsWith('match[')) continue;
    const field = /^match\[([^\]]*)\]$/.exec(name)?.[1];
    if (field === undefined || !(allowed as readonly string[]).includes(field)) {
      throw bad(
        `${shown(name)} is not a filter of this endpoint (it filters on ${allowed.length > 0 ? allowed.map((f) => `match[${f}]`).join(', ') : 'nothing'})`,
      );
    }
  }
  const values = (field: MatchField): string[] | undefined => {
    const value = params[`match[${field}]`];
    if (value === undefined) return undefined;
    const list = (Array.isArray(value) ? value : [value]).flatMap((part) => part.split(','));
    if (list.length > MAX_MATCH_VALUES)
      throw bad(`match[${field}] has ${list.length} values; at most ${MAX_MATCH_VALUES}`);
    const trimmed = list.map((part) => part.trim());
    if (trimmed.some((part) => part === '')) throw bad(`match[${field}] has an empty value`);
    return trimmed;
  };

  const ids = values('id');
  const wrongId = ids?.find((id) => !isStixId(id));
  if (wrongId !== undefined) throw bad(`match[id] has ${shown(wrongId)}, which is not a STIX id (<type>--<UUID>)`);
  const types = values('type');
  const wrongType = types?.find((type) => !isStixType(type));
  if (wrongType !== undefined) throw bad(`match[type] has ${shown(wrongType)}, which is not a STIX object type`);
  const specVersions = values('spec_version');
  const wrongSpec = specVersions?.find((version) => !SPEC_VERSION.test(version));
  if (wrongSpec !== undefined)
    throw bad(`match[spec_version] has ${shown(wrongSpec)}, which is not a version such as 2.1`);
  const versionValues = values('version');
  const at = new Set<number>();
  for (const value of versionValues ?? []) {
    if (value === 'first' || value === 'last' || value === 'all') continue;
    const micros = parseStixTimestamp(value);
    if (micros === undefined) throw bad(`match[version] has ${shown(value)}: expected first, last, all or a timestamp`);
    at.add(micros);
  }
  const chosen = new Set(versionValues ?? [options.defaultVersion]);
  const versions: VersionSelector = {
    all: chosen.has('all'),
    first: chosen.has('first'),
    last: chosen.has('last'),
    at,
  };

  const sorted = (list: readonly unknown[] | undefined) => (list === undefined ? null : [...new Set(list)].sort());
  return {
    ...(addedAfter === undefined ? {} : { addedAfter }),
    limit,
    ...(next === undefined ? {} : { next }),
    ...(ids ? { ids: new Set(ids) } : {}),
    ...(types ? { types: new Set(types) } : {}),
    versions,
    ...(specVersions ? { specVersions: new Set(specVersions) } : {}),
    canonical: [
      addedAfter ?? null,
      sorted(ids),
      sorted(types),
      [versions.all, versions.first, versions.last, ...[...at].sort((a, b) => a - b)],
      sorted(specVersions),
    ],
  };
}

function bad(description: string): TaxiiError {
  return new TaxiiError(400, 'Invalid query', description);
}

/** A value from the request as an error shows it: quoted, cut short. */
function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
