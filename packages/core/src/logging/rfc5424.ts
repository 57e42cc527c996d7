/** Syslog facility codes by name (RFC 5424 §6.2.1). */
export const SYSLOG_FACILITIES = {
  kern: 0,
  user: 1,
  mail: 2,
  daemon: 3,
  auth: 4,
  syslog: 5,
  lpr: 6,
  news: 7,
  uucp: 8,
  cron: 9,
  authpriv: 10,
  ftp: 11,
  local0: 16,
  local1: 17,
  local2: 18,
  local3: 19,
  local4: 20,
  local5: 21,
  local6: 22,
  local7: 23,
} as const;

/** A facility name RFC 5424 defines. */
export type SyslogFacilityName = keyof typeof SYSLOG_FACILITIES;

/** The facility code of a name or code (`'local0'` → 16, `3` → 3). */
export function facilityCode(facility: SyslogFacilityName | number): number {
  return typeof facility === 'number' ? facility : SYSLOG_FACILITIES[facility];
}

/**
 * The syslog severity of a pino level: fatal → 2 (critical), error → 3, warn → 4 (warning), info → 6
 * (informational), debug and trace → 7.
 */
export function syslogSeverity(pinoLevel: number): number {
  if (pinoLevel >= 60) return 2;
  if (pinoLevel >= 50) return 3;
  if (pinoLevel >= 40) return 4;
  if (pinoLevel >= 30) return 6;
  return 7;
}

/** The fields of one RFC 5424 message. */
export interface SyslogMessage {
  facility: number;
  severity: number;
  timestamp: Date;
  hostname: string;
  appName: string;
  procId: string | number;
  /** The type of message; threatlib uses the line's category. */
  msgId?: string | undefined;
  /** Already-formatted STRUCTURED-DATA (`[id k="v"]`); `-` when absent. */
  structuredData?: string | undefined;
  message: string;
}

/** A header field as RFC 5424 allows it: printable US-ASCII, at most `max` characters, `-` when empty. */
function headerField(value: string | number | undefined, max: number): string {
  if (value === undefined) return '-';
  const text = String(value)
    .replace(/[^\x21-\x7e]/g, '_')
    .slice(0, max);
  return text === '' ? '-' : text;
}

/**
 * One message in RFC 5424 form: `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA MSG`, where PRI is
 * facility × 8 + severity. Header fields are made printable ASCII and cut to their maximum lengths (255, 48, 128,
 * 32); MSG is sent as it is (UTF-8, no BOM).
 *
 * @example
 * ```ts
 * formatRfc5424({ facility: 16, severity: 4, timestamp: new Date(0), hostname: 'web1', appName: 'threatlib',
 *   procId: 42, msgId: 'feed', message: '{"msg":"slow"}' });
 * // '<132>1 1970-01-01T00:00:00.000Z web1 threatlib 42 feed - {"msg":"slow"}'
 * ```
 */
export function formatRfc5424(message: SyslogMessage): string {
  const pri = message.facility * 8 + message.severity;
  return [
    `<${pri}>1`,
    message.timestamp.toISOString(),
    headerField(message.hostname, 255),
    headerField(message.appName, 48),
    headerField(message.procId, 128),
    headerField(message.msgId, 32),
    message.structuredData ?? '-',
    message.message,
  ].join(' ');
}

/** A message framed for TCP by octet counting (RFC 6587 §3.4.1): `LENGTH SP MESSAGE`, LENGTH in bytes. */
export function octetCountingFrame(message: string): string {
  return `${Buffer.byteLength(message, 'utf8')} ${message}`;
}
