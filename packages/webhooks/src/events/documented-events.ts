import { z } from 'zod';

/** The event name of the documented incoming threat update (INTERFACE.md 6.2). */
export const THREAT_UPDATE_EVENT = 'threat-update';
/** The event name of the documented outgoing high-confidence threat (INTERFACE.md 6.2). */
export const HIGH_CONFIDENCE_THREAT_EVENT = 'high-confidence-threat';
/** The event name of the documented outgoing campaign report (INTERFACE.md 6.2). */
export const CAMPAIGN_DETECTED_EVENT = 'campaign-detected';

/**
 * The data a `threat-update` handler gets: the payload's data has `indicator`, a non-empty string (checked before any
 * handler runs: data without one is answered 400). Anything else the sender put in it is passed along unchecked.
 */
export interface ThreatUpdateData {
  /** The indicator to look at again (`evil.example.com`, `198.51.100.7`). */
  indicator: string;
  [key: string]: unknown;
}

/** The data of a `high-confidence-threat` sent with `trigger` (INTERFACE.md 2.5, "Outgoing webhook trigger data"). */
export interface HighConfidenceThreatData {
  /** The indicator's value. */
  indicator: string;
  /** How sure threatlib is that it is a threat, 0 to 100. */
  confidence: number;
  /** The feeds or lists that reported it. */
  sources: readonly string[];
  [key: string]: unknown;
}

/** The data of each documented incoming event, by name; handlers of any other name get `unknown`. */
export interface IncomingEventMap {
  'threat-update': ThreatUpdateData;
}

/** The data of each documented outgoing event `trigger` checks the type of, by name; any other name takes any data. */
export interface OutgoingEventMap {
  'high-confidence-threat': HighConfidenceThreatData;
}

/** `Event` unless it is one of `Documented`'s names (whose own overload types its data). */
export type UndocumentedEvent<Event extends string, Documented> = Event extends keyof Documented ? never : Event;

/**
 * What the data of a documented incoming event must be before its handlers run, so that the type they are given
 * ({@link IncomingEventMap}) is true.
 */
export const INCOMING_DATA_SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map([
  [
    THREAT_UPDATE_EVENT,
    z.looseObject(
      {
        indicator: z
          .string({ error: (issue) => `required: the indicator (a string); got ${typeName(issue.input)}` })
          .min(1, { error: 'the indicator is empty' })
          .max(8192, { error: 'the indicator is longer than 8192 characters' }),
      },
      { error: (issue) => `expected an object with an indicator; got ${typeName(issue.input)}` },
    ),
  ],
]);

/** The outgoing events threatlib documents: triggering one that no endpoint lists is not worth a warning. */
export const DOCUMENTED_OUTGOING_EVENTS: ReadonlySet<string> = new Set([
  HIGH_CONFIDENCE_THREAT_EVENT,
  CAMPAIGN_DETECTED_EVENT,
]);

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
