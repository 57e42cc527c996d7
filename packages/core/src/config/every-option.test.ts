// Every option the configuration schema accepts either changes what the client does, or is refused as "not
// supported yet". The list of options is read from the schema itself: an option added without a check here fails
// the first test. Each check observes the client (or the piece the client drives) twice, with the option at its
// default and at another value, and requires the two observations to differ. The checks are in every-option/, one
// module per section of the configuration (with the observations only that section makes); this file runs them.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { describeWithRedis } from '../cache/redis-e2e.test-suite.js';
import { ALERTING_CHECKS } from './every-option/alerting.test-suite.js';
import { BROWSER_CHECKS } from './every-option/browser.test-suite.js';
import { CACHING_CHECKS } from './every-option/caching.test-suite.js';
import { type Check, resolve } from './every-option/check.test-suite.js';
import { CLUSTER_CHECKS } from './every-option/cluster.test-suite.js';
import { ENTERPRISE_CHECKS } from './every-option/enterprise.test-suite.js';
import { EVENT_CHECKS } from './every-option/events.test-suite.js';
import { feeds, LIST_CHECKS } from './every-option/lists.test-suite.js';
import { LOGGING_CHECKS } from './every-option/logging.test-suite.js';
import { LOOKUP_CHECKS } from './every-option/lookups.test-suite.js';
import { PERFORMANCE_CHECKS } from './every-option/performance.test-suite.js';
import { SECURITY_CHECKS } from './every-option/security.test-suite.js';
import { BASE, closeWorld, startWorld } from './every-option/world.test-suite.js';
import { configWith } from './option-checks.test-suite.js';
import { parseConfig } from './parse-config.js';
import { LogTransportsSchema, ThreatConfigSchema } from './schema.js';

// ---------------------------------------------------------------------------------------------------------------
// The options, read from the schema.

/**
 * Every option path of `schema`: `performance.rateLimit.perFeed.*.requestsPerDay` (`*` for a record's keys),
 * `lists[].weight` (an array of objects), `logging.transports[type=file].maxSize` (a tagged union's member),
 * `apiKeys.*` for the scalar form of an option that also takes an object.
 */
function optionPaths(schema: z.core.$ZodType, path = ''): string[] {
  // Core checks the type of each integration's options only; their packages own the rest (and its tests).
  if (path === 'integrations') return [path];
  // Read through a custom transform: its documented form is the array.
  if (path === 'logging.transports' && kindOf(schema) === 'pipe') return optionPaths(LogTransportsSchema, path);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const inner = (key: string) => def[key] as z.core.$ZodType;
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
    case 'catch':
      return optionPaths(inner('innerType'), path);
    case 'pipe':
      return optionPaths(inner('in'), path);
    case 'object':
      return Object.entries(def.shape as Record<string, z.core.$ZodType>).flatMap(([key, value]) =>
        optionPaths(value, path ? `${path}.${key}` : key),
      );
    case 'array': {
      const element = inner('element');
      if (!holdsOptions(element)) return [path];
      return optionPaths(element, isTaggedUnion(element) ? path : `${path}[]`);
    }
    case 'record':
      return holdsOptions(inner('valueType')) ? optionPaths(inner('valueType'), `${path}.*`) : [path];
    case 'union': {
      const options = def.options as z.core.$ZodType[];
      const objects = options.filter((o) => kindOf(o) === 'object');
      if (objects.length === 0) return [path];
      const discriminator = def.discriminator as string | undefined;
      if (discriminator) {
        return objects.flatMap((o) => {
          const shape = (unwrap(o)._zod.def as unknown as { shape: Record<string, z.core.$ZodType> }).shape;
          const tag = (shape[discriminator]?._zod.def as unknown as { values?: unknown[] } | undefined)?.values?.[0];
          return optionPaths(o, `${path}[${discriminator}=${String(tag)}]`);
        });
      }
      return [...(objects.length < options.length ? [path] : []), ...objects.flatMap((o) => optionPaths(o, path))];
    }
    default:
      return [path];
  }
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  const def = schema._zod.def as unknown as { type: string; innerType?: z.core.$ZodType };
  return ['optional', 'default', 'prefault', 'nullable'].includes(def.type) && def.innerType
    ? unwrap(def.innerType)
    : schema;
}

const kindOf = (schema: z.core.$ZodType) => unwrap(schema)._zod.def.type;
const holdsOptions = (schema: z.core.$ZodType) => ['object', 'union', 'record'].includes(kindOf(schema));
const isTaggedUnion = (schema: z.core.$ZodType) =>
  kindOf(schema) === 'union' && (unwrap(schema)._zod.def as unknown as { discriminator?: string }).discriminator;

// ---------------------------------------------------------------------------------------------------------------
// The checks, one table per section of the configuration (an option in two tables would hide one: refused here).

const SECTIONS = [
  LOOKUP_CHECKS,
  SECURITY_CHECKS,
  PERFORMANCE_CHECKS,
  CACHING_CHECKS,
  EVENT_CHECKS,
  BROWSER_CHECKS,
  LOGGING_CHECKS,
  ENTERPRISE_CHECKS,
  LIST_CHECKS,
  ALERTING_CHECKS,
  CLUSTER_CHECKS,
];
const CHECKS: Record<string, Check> = {};
for (const section of SECTIONS) {
  for (const [path, check] of Object.entries(section)) {
    if (path in CHECKS) throw new Error(`${path} has a check in two sections of every-option/`);
    CHECKS[path] = check;
  }
}

beforeAll(() => startWorld([feeds]));
afterAll(() => closeWorld([feeds]));

// ---------------------------------------------------------------------------------------------------------------
// The checks.

const PATHS = optionPaths(ThreatConfigSchema);
const REPO = new URL('../../../../', import.meta.url);

/** A configuration with `value` at a dotted `path` (no wildcards). */
function at(path: string, value: unknown): object {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as object;
}

function valueAt(object: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, key) => (o as Record<string, unknown> | undefined)?.[key], object);
}

async function run(path: string, check: Check): Promise<void> {
  switch (check.kind) {
    case 'effect': {
      const before = await check.observe(configWith(BASE, resolve(check.without)));
      const after = await check.observe(configWith(BASE, resolve(check.without), resolve(check.with)));
      expect(after, `${path} made no difference: both observations were ${JSON.stringify(before)}`).not.toEqual(before);
      return;
    }
    case 'only': {
      expect(() => parseConfig(configWith(BASE, resolve(check.with)))).toThrow(
        new RegExp(`^Configuration invalid: ${path.replace(/[.[\]]/g, '\\$&')}: `),
      );
      expect(() => parseConfig(configWith(BASE, at(path, valueAt(parseConfig(BASE), path))))).not.toThrow();
      return;
    }
    case 'elsewhere': {
      const file = new URL(check.file, REPO);
      expect(existsSync(file), `${check.file} should hold the test of ${path}`).toBe(true);
      const text = readFileSync(file, 'utf8');
      for (const mention of check.mentions) expect(text, `${check.file} should test ${path}`).toContain(mention);
      return;
    }
  }
}

describe('every option of the configuration schema', () => {
  it('has exactly one check per option the schema accepts (an option added without one fails here)', () => {
    expect(PATHS.length).toBeGreaterThan(100);
    expect(PATHS.filter((path) => !(path in CHECKS))).toEqual([]);
    expect(Object.keys(CHECKS).filter((path) => !PATHS.includes(path))).toEqual([]);
  });

  for (const path of PATHS) {
    const check = CHECKS[path];
    if (!check || (check.kind === 'effect' && check.needs === 'redis')) continue;
    const what = {
      effect: 'changes what the client does',
      only: 'has one value, any other refused',
      elsewhere: `takes effect in ${check.kind === 'elsewhere' ? check.file : ''}`,
    }[check.kind];
    it(`${path} ${what}`, () => run(path, check), 30_000);
  }
});

describeWithRedis('every option of the configuration schema, against the e2e Redis', () => {
  for (const path of PATHS) {
    const check = CHECKS[path];
    if (check?.kind === 'effect' && check.needs === 'redis') {
      it(`${path} changes what the client does`, () => run(path, check), 30_000);
    }
  }
});
