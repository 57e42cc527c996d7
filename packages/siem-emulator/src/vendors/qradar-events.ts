// Syslog intake: how a message the TCP or TLS listener received becomes an Ariel event (its syslog header, its
// LEEF read by the reader the emulator was given, its device time, source and severity).
import type { ArielEvent } from './qradar-aql.js';
import type { SyslogMessage } from './qradar-syslog.js';

/** A LEEF reader the emulator is given (the strict one of @threatlib/siem in its tests). */
export type LeefReader = (line: string) => { eventId: string; attributes: Record<string, string> };

/** A syslog message the listeners received, as Ariel keeps it. */
export interface QradarEvent extends ArielEvent {
  /** The LEEF EventID, when the payload was LEEF the reader accepted. */
  eventId: string | undefined;
  /** Why the LEEF reader refused the payload (an event QRadar would store unparsed). */
  leefError: string | undefined;
  /** The syslog header's HOSTNAME (QRadar's log source identifier), when it had one. */
  hostname: string | undefined;
  truncated: boolean;
  framing: SyslogMessage['framing'];
  transport: SyslogMessage['transport'];
}

const RFC5424 = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|\[[^\]]*\](?:\[[^\]]*\])*) ?([\s\S]*)$/;
const RFC3164 = /^<(\d{1,3})>[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} (\S+) ([\s\S]*)$/;

/** The Ariel event QRadar keeps of one syslog message. */
export function toQradarEvent(message: SyslogMessage, parseLeef: LeefReader | undefined): QradarEvent {
  const now = Date.now();
  const header = RFC5424.exec(message.text) ?? RFC3164.exec(message.text);
  const hostname = header ? (header.length === 9 ? header[3] : header[2]) : undefined;
  const body = header ? ((header.length === 9 ? header[8] : header[3]) ?? '') : message.text;
  let eventId: string | undefined;
  let leefError: string | undefined;
  let properties: Record<string, string> = {};
  if (parseLeef && body.startsWith('LEEF:')) {
    try {
      const leef = parseLeef(body);
      eventId = leef.eventId;
      properties = leef.attributes;
    } catch (error) {
      leefError = (error as Error).message;
    }
  } else if (body.startsWith('LEEF:')) {
    leefError = 'no LEEF reader configured';
  }
  const severity = Math.min(10, Math.max(0, Number(properties.sev) || 0));
  return {
    starttime: now,
    devicetime: deviceTime(properties) ?? now,
    sourceip: properties.src ?? message.remoteAddress.replace(/^::ffff:/, ''),
    destinationip: properties.dst ?? '0.0.0.0',
    severity,
    // QRadar weighs severity, credibility and relevance into magnitude; with the last two at their midpoint,
    // magnitude follows severity.
    magnitude: severity,
    payload: message.text,
    properties,
    eventId,
    leefError,
    hostname,
    truncated: message.truncated,
    framing: message.framing,
    transport: message.transport,
  };
}

/** Epoch ms of a LEEF event's `devTime` (epoch ms, or a date `Date.parse` reads with the ISO `devTimeFormat`). */
function deviceTime(attributes: Record<string, string>): number | undefined {
  const text = attributes.devTime;
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}
