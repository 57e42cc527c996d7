// The part of Google SecOps' Unified Data Model the Chronicle emulator understands, and how it reads an event the
// way Google's JSON-to-protobuf mapping does: field names in lowerCamelCase or snake_case, an unknown name refused
// ("Unknown name ... Cannot find field."), a value of the wrong kind refused ("Invalid value at ..."), enums by name.
// - UDM event: https://cloud.google.com/chronicle/docs/reference/rest/Shared.Types/UDM
// - UDM field list: https://cloud.google.com/chronicle/docs/reference/udm-field-list
// - Event types and required fields: https://cloud.google.com/chronicle/docs/unified-data-model/udm-usage
// - Protobuf JSON mapping (names, Timestamp, Struct): https://protobuf.dev/programming-guides/json/

/** How one field is read. */
type Spec =
  | 'string'
  | 'int'
  | 'number'
  | 'bool'
  | 'timestamp'
  | 'struct'
  | { enum: string; values: readonly string[] }
  | { message: Fields }
  | { repeated: Spec };

type Fields = { readonly [camelName: string]: Spec };

const repeated = (spec: Spec): Spec => ({ repeated: spec });
const message = (fields: Fields): Spec => ({ message: fields });

/** `metadata.event_type`: every value the UDM usage guide lists. */
export const UDM_EVENT_TYPES = [
  'EVENTTYPE_UNSPECIFIED',
  'ANALYST_ADD_COMMENT',
  'ANALYST_UPDATE_PRIORITY',
  'ANALYST_UPDATE_REASON',
  'ANALYST_UPDATE_REPUTATION',
  'ANALYST_UPDATE_RISK_SCORE',
  'ANALYST_UPDATE_ROOT_CAUSE',
  'ANALYST_UPDATE_SEVERITY_SCORE',
  'ANALYST_UPDATE_STATUS',
  'ANALYST_UPDATE_VERDICT',
  'DEVICE_CONFIG_UPDATE',
  'DEVICE_FIRMWARE_UPDATE',
  'DEVICE_PROGRAM_DOWNLOAD',
  'DEVICE_PROGRAM_UPLOAD',
  'EMAIL_UNCATEGORIZED',
  'EMAIL_TRANSACTION',
  'EMAIL_URL_CLICK',
  'FILE_UNCATEGORIZED',
  'FILE_COPY',
  'FILE_CREATION',
  'FILE_DELETION',
  'FILE_MODIFICATION',
  'FILE_MOVE',
  'FILE_OPEN',
  'FILE_READ',
  'FILE_SYNC',
  'GENERIC_EVENT',
  'GROUP_UNCATEGORIZED',
  'GROUP_CREATION',
  'GROUP_DELETION',
  'GROUP_MODIFICATION',
  'MUTEX_UNCATEGORIZED',
  'MUTEX_CREATION',
  'NETWORK_UNCATEGORIZED',
  'NETWORK_CONNECTION',
  'NETWORK_DHCP',
  'NETWORK_DNS',
  'NETWORK_FLOW',
  'NETWORK_FTP',
  'NETWORK_HTTP',
  'NETWORK_SMTP',
  'PROCESS_UNCATEGORIZED',
  'PROCESS_INJECTION',
  'PROCESS_LAUNCH',
  'PROCESS_MODULE_LOAD',
  'PROCESS_OPEN',
  'PROCESS_PRIVILEGE_ESCALATION',
  'PROCESS_TERMINATION',
  'REGISTRY_UNCATEGORIZED',
  'REGISTRY_CREATION',
  'REGISTRY_MODIFICATION',
  'REGISTRY_DELETION',
  'RESOURCE_CREATION',
  'RESOURCE_DELETION',
  'RESOURCE_PERMISSIONS_CHANGE',
  'RESOURCE_READ',
  'RESOURCE_WRITTEN',
  'SCAN_UNCATEGORIZED',
  'SCAN_FILE',
  'SCAN_HOST',
  'SCAN_NETWORK',
  'SCAN_PROCESS',
  'SCAN_PROCESS_BEHAVIORS',
  'SCAN_VULN_HOST',
  'SCAN_VULN_NETWORK',
  'SCHEDULED_TASK_UNCATEGORIZED',
  'SCHEDULED_TASK_CREATION',
  'SCHEDULED_TASK_DELETION',
  'SCHEDULED_TASK_DISABLE',
  'SCHEDULED_TASK_ENABLE',
  'SCHEDULED_TASK_MODIFICATION',
  'SERVICE_UNSPECIFIED',
  'SERVICE_CREATION',
  'SERVICE_DELETION',
  'SERVICE_START',
  'SERVICE_STOP',
  'SERVICE_MODIFICATION',
  'SETTING_UNCATEGORIZED',
  'SETTING_CREATION',
  'SETTING_MODIFICATION',
  'SETTING_DELETION',
  'STATUS_UNCATEGORIZED',
  'STATUS_HEARTBEAT',
  'STATUS_STARTUP',
  'STATUS_SHUTDOWN',
  'STATUS_UPDATE',
  'SYSTEM_AUDIT_LOG_UNCATEGORIZED',
  'SYSTEM_AUDIT_LOG_WIPE',
  'USER_UNCATEGORIZED',
  'USER_BADGE_IN',
  'USER_CHANGE_PASSWORD',
  'USER_CHANGE_PERMISSIONS',
  'USER_COMMUNICATION',
  'USER_CREATION',
  'USER_DELETION',
  'USER_LOGIN',
  'USER_LOGOUT',
  'USER_RESOURCE_ACCESS',
  'USER_RESOURCE_CREATION',
  'USER_RESOURCE_DELETION',
  'USER_RESOURCE_UPDATE_CONTENT',
  'USER_RESOURCE_UPDATE_PERMISSIONS',
  'USER_STATS',
] as const;

/** `security_result.severity`. */
export const UDM_SEVERITIES = [
  'UNKNOWN_SEVERITY',
  'INFORMATIONAL',
  'ERROR',
  'LOW',
  'MEDIUM',
  'HIGH',
  'CRITICAL',
] as const;

const label = message({ key: 'string', value: 'string' });
const file = message({
  fullPath: 'string',
  md5: 'string',
  sha1: 'string',
  sha256: 'string',
  size: 'int',
  mimeType: 'string',
  names: repeated('string'),
});
const user = message({
  userid: 'string',
  userDisplayName: 'string',
  emailAddresses: repeated('string'),
  productObjectId: 'string',
  windowsSid: 'string',
});
const noun = message({
  hostname: 'string',
  assetId: 'string',
  ip: repeated('string'),
  port: 'int',
  mac: repeated('string'),
  url: 'string',
  application: 'string',
  namespace: 'string',
  administrativeDomain: 'string',
  email: 'string',
  domain: message({ name: 'string' }),
  user,
  file,
  process: message({ pid: 'string', commandLine: 'string', file }),
  resource: message({ name: 'string', type: 'string', productObjectId: 'string' }),
  labels: repeated(label),
});
const securityResult = message({
  summary: 'string',
  description: 'string',
  severity: { enum: 'type.googleapis.com/backstory.SecurityResult.ProductSeverity', values: UDM_SEVERITIES },
  severityDetails: 'string',
  confidence: {
    enum: 'type.googleapis.com/backstory.SecurityResult.ProductConfidence',
    values: ['UNKNOWN_CONFIDENCE', 'LOW_CONFIDENCE', 'MEDIUM_CONFIDENCE', 'HIGH_CONFIDENCE'],
  },
  confidenceScore: 'number',
  confidenceDetails: 'string',
  riskScore: 'number',
  priority: {
    enum: 'type.googleapis.com/backstory.SecurityResult.ProductPriority',
    values: ['UNKNOWN_PRIORITY', 'LOW_PRIORITY', 'MEDIUM_PRIORITY', 'HIGH_PRIORITY'],
  },
  action: repeated({
    enum: 'type.googleapis.com/backstory.SecurityResult.Action',
    values: ['UNKNOWN_ACTION', 'ALLOW', 'BLOCK', 'ALLOW_WITH_MODIFICATION', 'QUARANTINE', 'FAIL', 'CHALLENGE'],
  }),
  alertState: {
    enum: 'type.googleapis.com/backstory.SecurityResult.AlertState',
    values: ['UNSPECIFIED', 'NOT_ALERTING', 'ALERTING'],
  },
  categoryDetails: repeated('string'),
  ruleName: 'string',
  ruleId: 'string',
  ruleType: 'string',
  threatName: 'string',
  threatId: 'string',
  urlBackToProduct: 'string',
  detectionFields: repeated(label),
  about: noun,
});
const metadata = message({
  id: 'string',
  productLogId: 'string',
  eventTimestamp: 'timestamp',
  collectedTimestamp: 'timestamp',
  ingestedTimestamp: 'timestamp',
  eventType: { enum: 'type.googleapis.com/backstory.Metadata.EventType', values: UDM_EVENT_TYPES },
  vendorName: 'string',
  productName: 'string',
  productVersion: 'string',
  productEventType: 'string',
  productDeploymentId: 'string',
  description: 'string',
  urlBackToProduct: 'string',
  logType: 'string',
  ingestionLabels: repeated(label),
});
const network = message({
  applicationProtocol: 'string',
  direction: 'string',
  dns: message({ questions: repeated(message({ name: 'string', type: 'int' })) }),
  email: message({ from: 'string', to: repeated('string'), subject: repeated('string') }),
  http: message({ method: 'string', userAgent: 'string', responseCode: 'int', referralUrl: 'string' }),
});

/** A UDM event: what the emulator keeps of `Event.udm`. */
const UDM: Fields = {
  metadata,
  additional: 'struct',
  principal: noun,
  src: noun,
  target: noun,
  intermediary: repeated(noun),
  observer: noun,
  about: repeated(noun),
  securityResult: repeated(securityResult),
  network,
};

/** A UDM event once read: field names in lowerCamelCase, enums by name, timestamps as RFC 3339 text. */
export type UdmEvent = Record<string, unknown> & {
  metadata: Record<string, unknown> & { eventTimestamp: string; eventType: string };
};

/** Why Google would refuse the request: the message of its `INVALID_ARGUMENT` answer, and the field at fault. */
export class UdmRejection extends Error {
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.name = 'UdmRejection';
    this.field = field;
  }
}

/** `eventTimestamp` → `event_timestamp`, as Google names fields in its messages. */
function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `event_timestamp` → `eventTimestamp`. */
export function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** RFC 3339 as protobuf's Timestamp takes it: a `Z` or offset, up to nine fractional digits. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Epoch ms of an RFC 3339 timestamp, or undefined when it is not one. */
export function timestampMs(text: string): number | undefined {
  if (!RFC3339.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Reads the `udm` of one event of an import request, at `path` (`inline_source.events[0].udm`), the way Google
 * does: unknown names and wrong kinds of value are refused, then the fields the UDM requires are checked.
 *
 * @throws {UdmRejection} with Google's message for the first problem.
 */
export function readUdmEvent(value: unknown, path: string): UdmEvent {
  const event = readMessage(value, UDM, path);
  const meta = event.metadata as Record<string, unknown> | undefined;
  if (meta === undefined) throw new UdmRejection(`${path}.metadata`, `${path}.metadata is required.`);
  if (meta.eventTimestamp === undefined) {
    throw new UdmRejection(`${path}.metadata.event_timestamp`, `${path}.metadata.event_timestamp is required.`);
  }
  if (meta.eventType === undefined || meta.eventType === 'EVENTTYPE_UNSPECIFIED') {
    throw new UdmRejection(
      `${path}.metadata.event_type`,
      `${path}.metadata.event_type is required and must not be EVENTTYPE_UNSPECIFIED.`,
    );
  }
  return event as UdmEvent;
}

function readMessage(value: unknown, fields: Fields, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UdmRejection(path, `Invalid value at '${path}', ${JSON.stringify(value)}: expected an object.`);
  }
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    const key = camel(name);
    const spec = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (spec === undefined) {
      throw new UdmRejection(
        path,
        `Invalid JSON payload received. Unknown name ${JSON.stringify(name)} at '${path}': Cannot find field.`,
      );
    }
    if (Object.hasOwn(out, key)) {
      throw new UdmRejection(
        `${path}.${snake(key)}`,
        `Invalid JSON payload received. Duplicate value for field ${JSON.stringify(snake(key))} at '${path}'.`,
      );
    }
    if (field === null) continue;
    out[key] = readValue(field, spec, `${path}.${snake(key)}`);
  }
  return out;
}

function readValue(value: unknown, spec: Spec, path: string): unknown {
  const invalid = (type: string) =>
    new UdmRejection(path, `Invalid value at '${path}' (${type}), ${JSON.stringify(value)}`);
  if (typeof spec === 'object' && 'repeated' in spec) {
    if (!Array.isArray(value)) throw invalid('repeated field: expected a list');
    return value.map((item, i) => readValue(item, spec.repeated, `${path}[${i}]`));
  }
  if (typeof spec === 'object' && 'message' in spec) return readMessage(value, spec.message, path);
  if (typeof spec === 'object' && 'enum' in spec) {
    if (typeof value !== 'string' || !spec.values.includes(value)) throw invalid(spec.enum);
    return value;
  }
  switch (spec) {
    case 'string':
      if (typeof value !== 'string') throw invalid('TYPE_STRING');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw invalid('TYPE_BOOL');
      return value;
    case 'int': {
      const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) throw invalid('TYPE_INT64');
      return n;
    }
    case 'number': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid('TYPE_FLOAT');
      return n;
    }
    case 'timestamp':
      if (typeof value !== 'string' || timestampMs(value) === undefined) {
        throw invalid('type.googleapis.com/google.protobuf.Timestamp');
      }
      return value;
    case 'struct':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw invalid('type.googleapis.com/google.protobuf.Struct');
      }
      return value;
  }
}
