import type { AlertInput, CaseInput } from '@threatlib/core';
import { QRADAR_DEFAULTS, type QradarEvent, TEST_CA } from '@threatlib/siem-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import type { SiemConnectorOptions } from '../../connector/connector-options.js';
import { SiemAuthenticationError } from '../../connector/siem-authentication-error.js';
import { SIEMConnector } from '../../connector/siem-connector.js';
import { SiemError } from '../../connector/siem-error.js';
import { SiemUnreachableError } from '../../connector/siem-unreachable-error.js';
import { closedPort } from '../../test-support/closed-port.js';
import { qradarHarness } from '../../test-support/qradar-harness.js';

type Harness = Awaited<ReturnType<typeof qradarHarness>>;

const alert = {
  title: 'Malicious IP contacted',
  severity: 'high',
  description: 'Outbound connection to a known C2 server',
  indicators: [{ type: 'ip', value: '198.51.100.7', confidence: 90 }],
  timestamp: new Date().toISOString(),
} satisfies AlertInput;

const phishing = {
  title: 'Phishing campaign',
  description: 'Credential harvesting against finance',
  priority: 'critical',
  assignee: 'analyst@example.com',
  indicators: [
    { type: 'domain', value: 'login-example.com', source: 'feed_urls' },
    { type: 'url', value: 'https://login-example.com/o365', source: 'feed_urls' },
  ],
} satisfies CaseInput;

describe('siem_b (QRadar)', () => {
  let harness: Harness;
  const connectors: SIEMConnector[] = [];
  const connect = (overrides: Partial<SiemConnectorOptions> = {}) => {
    const connector = new SIEMConnector({ ...harness.options, retryDelay: 1, ...overrides } as SiemConnectorOptions);
    connectors.push(connector);
    return connector;
  };
  const failure = async (promise: Promise<unknown>): Promise<SiemError> => {
    const error = await promise.then(
      () => expect.unreachable('expected a rejection'),
      (e: unknown) => e,
    );
    expect(SiemError.isInstance(error), String(error)).toBe(true);
    const text = `${(error as Error).message} ${JSON.stringify(error)}`;
    for (const secret of harness.secrets) expect(text).not.toContain(secret);
    return error as SiemError;
  };
  const received = (eventId: string): QradarEvent[] =>
    harness.emulator.qradar.events.filter((e) => e.eventId === eventId);

  afterEach(async () => {
    await Promise.all(connectors.splice(0).map((c) => c.stop()));
    await harness?.close();
  });

  it('runs the documented example: testConnection, sendAlert, createCase, enrichIndicator', async () => {
    harness = await qradarHarness();
    const { emulator } = harness;
    const siem = new SIEMConnector({
      platform: 'siem_b',
      host: emulator.host,
      port: emulator.port,
      credentials: { token: QRADAR_DEFAULTS.token },
      timeout: 30000,
      retries: 3,
      tls: { ca: TEST_CA },
      syslog: { port: emulator.qradar.syslogTlsPort, hostname: 'threatlib-test' },
    });
    connectors.push(siem);

    const report = await siem.testConnection();
    expect(report).toMatchObject({ platform: 'siem_b', version: '7.5.0 UpdatePackage 8' });
    expect(report.checks.syslog).toMatch(/TLS syslog listener at 127\.0\.0\.1:\d+ accepted a connection/);

    const receipt = await siem.sendAlert(alert);
    expect(receipt).toMatchObject({ platform: 'siem_b', accepted: 1, referenceSet: 'threatlib alert indicators' });
    const [event] = received('ThreatAlert');
    expect(event).toMatchObject({
      transport: 'tls',
      framing: 'octet-counting',
      hostname: 'threatlib-test',
      leefError: undefined,
      truncated: false,
      destinationip: '198.51.100.7',
      magnitude: 8,
    });
    expect(event?.payload).toMatch(
      /^<11>1 \S+ threatlib-test threatlib - ThreatAlert - LEEF:2\.0\|threatlib\|threatlib\|/,
    );
    expect(event?.properties).toMatchObject({
      cat: 'high',
      title: alert.title,
      description: alert.description,
      indicator: '198.51.100.7',
      devTime: alert.timestamp,
    });
    const alertSet = emulator.qradar.referenceSets.get('threatlib alert indicators');
    expect(alertSet?.element_type).toBe('ALNIC');
    expect(alertSet?.elements.get('198.51.100.7')).toMatchObject({ source: 'threatlib' });

    const caseId = await siem.createCase(phishing);
    expect(caseId).toMatch(/^threatlib-case-[0-9a-f-]{36}$/);
    const [caseEvent] = received('ThreatCase');
    expect(caseEvent?.properties).toMatchObject({
      caseId,
      title: 'Phishing campaign',
      priority: 'critical',
      cat: 'critical',
      sev: '10',
      assignee: 'analyst@example.com',
      sources: 'feed_urls',
    });
    // Two indicators: one bulk load, into the case set.
    expect(emulator.requests.map((r) => r.path)).toContain(
      '/api/reference_data/sets/bulk_load/SHARED/threatlib%20case%20indicators/SHARED',
    );
    expect([...(emulator.qradar.referenceSets.get('threatlib case indicators')?.elements.keys() ?? [])]).toEqual([
      'login-example.com',
      'https://login-example.com/o365',
    ]);

    const enriched = await siem.enrichIndicator({ type: 'ip', value: '198.51.100.7' });
    expect(enriched).toEqual({
      indicator: '198.51.100.7',
      firstSeen: alert.timestamp,
      lastSeen: alert.timestamp,
      associatedEvents: 1,
      riskScore: 8,
    });
    // Every REST call carried the token and the Version header.
    for (const request of emulator.requests) {
      expect(request.headers).toMatchObject({
        sec: QRADAR_DEFAULTS.token,
        version: '22.0',
        accept: 'application/json',
      });
    }
  });

  it('adds a case to an offense as a note, and refuses an offense that does not exist before sending anything', async () => {
    harness = await qradarHarness({ qradar: { offenses: [4021] } });
    const siem = connect();
    const caseId = await siem.createCase(phishing, { offenseId: 4021 });
    const [note] = harness.emulator.qradar.offenses.get(4021)?.notes ?? [];
    expect(note?.note_text).toContain(`threatlib case ${caseId}: Phishing campaign`);
    expect(note?.note_text).toContain('Priority: critical; assignee: analyst@example.com');
    expect(note?.note_text).toContain('domain login-example.com (feed_urls)');

    const error = await failure(siem.createCase(phishing, { offenseId: 99 }));
    expect(error.message).toMatch(/reading offense 99: HTTP 404: Offense 99 does not exist/);
    expect(error.isRetryable).toBe(false);
    expect(received('ThreatCase')).toHaveLength(1);
  });

  it('refuses offenseId on a platform without offenses, and an id that is not one', async () => {
    harness = await qradarHarness();
    const splunk = new SIEMConnector({ platform: 'siem_a', host: 'splunk.example.com', credentials: { token: 'x' } });
    await expect(splunk.createCase(phishing, { offenseId: 1 })).rejects.toThrow(
      /Invalid case options: offenseId: Splunk \(siem_a\) has no offenses; only siem_b \(QRadar\) takes it/,
    );
    await expect(connect().createCase(phishing, { offenseId: -1 })).rejects.toThrow(
      /offenseId: expected an offense id/,
    );
  });

  it('wrong token or password: testConnection says authentication failed with QRadar’s reason, and is not retried', async () => {
    harness = await qradarHarness();
    const token = await failure(
      connect({ credentials: { token: 'f00dfeed-1234-4000-8000-000000000000' } }).testConnection(),
    );
    expect(SiemAuthenticationError.isInstance(token)).toBe(true);
    expect(token.message).toBe(
      'authentication failed: Invalid authorization token: the SEC token is not an authorized service token (QRadar code 18)',
    );
    expect(token.attempts).toBe(1);
    const password = await failure(
      connect({ credentials: { username: QRADAR_DEFAULTS.username, password: 'wrong-password-77' } }).testConnection(),
    );
    expect(password.message).toMatch(/^authentication failed: Invalid credentials: .* \(QRadar code 18\)$/);
    expect(password.message).not.toContain('wrong-password-77');
  });

  it('host down says unreachable; a syslog listener down says so, naming its address', async () => {
    harness = await qradarHarness();
    const down = await closedPort();
    const api = await failure(connect({ port: down, retries: 1 }).testConnection());
    expect(SiemUnreachableError.isInstance(api)).toBe(true);
    expect(api.message).toMatch(new RegExp(`^QRadar at 127\\.0\\.0\\.1:${down} unreachable: connection refused`));
    expect(api.attempts).toBe(2);
    const syslog = await failure(connect({ syslog: { port: down }, retries: 0 }).sendAlert(alert));
    expect(syslog.message).toBe(
      `QRadar at 127.0.0.1:${down} unreachable: syslog listener: connection refused (ECONNREFUSED)`,
    );
    expect(syslog.isRetryable).toBe(true);
  });

  it('an API version QRadar no longer serves is refused with a hint, and not retried', async () => {
    harness = await qradarHarness();
    const error = await failure(connect({ apiVersion: '12.0' }).testConnection());
    expect(error.message).toMatch(
      /^QRadar testConnection: reading \/system\/about: QRadar refused API version 12\.0 \(HTTP 422: Version 12\.0 is no longer supported.*\); set apiVersion to one it supports$/,
    );
    expect(error.attempts).toBe(1);
    expect(error.statusCode).toBe(422);
  });

  it('QRadar busy (503): retried until it answers', async () => {
    harness = await qradarHarness();
    harness.emulator.failNext(2, 'busy', 'qradar');
    await connect({ retries: 2 }).sendAlert(alert);
    expect(received('ThreatAlert')).toHaveLength(1);
    harness.emulator.failNext(3, 'busy', 'qradar');
    const error = await failure(connect({ retries: 1 }).testConnection());
    expect(error.message).toMatch(
      /HTTP 503: The server is temporarily unavailable.*\(QRadar code 1010\) \(after 2 attempts\)$/,
    );
  });

  it('shortens an alert to QRadar’s maximum payload length, so that it arrives whole and still parses', async () => {
    harness = await qradarHarness({ qradar: { maxPayloadBytes: 1024 } });
    const long = {
      ...alert,
      description: 'Ä|\\=^\n'.repeat(400),
      indicators: Array.from({ length: 40 }, (_, i) => ({ type: 'domain' as const, value: `c2-${i}.example.com` })),
    };
    await connect({ syslog: { port: harness.emulator.qradar.syslogTlsPort, maxMessageBytes: 1024 } }).sendAlert(long);
    const [event] = received('ThreatAlert');
    expect(event).toMatchObject({ truncated: false, leefError: undefined });
    expect(Buffer.byteLength(event?.payload ?? '')).toBeLessThanOrEqual(1024);
    expect(event?.properties.truncated).toBe('true');
    expect(event?.properties.indicators).toBeUndefined();
    expect(event?.properties.description?.endsWith('…')).toBe(true);
    expect(long.description.startsWith(event?.properties.description?.slice(0, -1) ?? 'x')).toBe(true);
    // Every indicator still reached the reference set.
    expect(harness.emulator.qradar.referenceSets.get('threatlib alert indicators')?.elements.size).toBe(40);
  });

  it('sends an alert whose text holds every control and separator character as one LEEF record, over line-feed framing', async () => {
    harness = await qradarHarness();
    // NUL, VT, FF, CR, LF, NEL, U+2028, U+2029, DEL, ESC, a C1 control, a tab: what a receiver may end a record at.
    const breakers = '\u0000\u000b\u000c\r\n\u0085\u2028\u2029\u007f\u001b\u009b\t';
    const hostile = {
      ...alert,
      title: `Title${breakers}end`,
      description: `Description${breakers}end`,
      indicators: [{ type: 'ip' as const, value: '198.51.100.7', confidence: 90, source: `feed${breakers}x` }],
    };
    const connector = connect({
      leefVersion: '1.0',
      syslog: { port: harness.emulator.qradar.syslogPort, protocol: 'tcp', framing: 'lf', hostname: 'threatlib-test' },
    });
    await connector.sendAlert(hostile);
    await connector.sendAlert(alert);
    const events = received('ThreatAlert');
    expect(events).toHaveLength(2);
    const [event] = events;
    expect(event).toMatchObject({ framing: 'lf', leefError: undefined });
    // The tabs that delimit LEEF 1.0 aside, no raw control or separator character in the record.
    expect((event?.payload ?? '').replaceAll('\t', '')).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
    expect(event?.properties.title).toBe('Title\ufffd\n\n\r\n\n\n\n\ufffd\ufffd\ufffd\tend');
    expect(event?.properties.indicator).toBe('198.51.100.7');
  });

  it('enrichment: the reference set dates an indicator no event in the window mentions', async () => {
    harness = await qradarHarness();
    const siem = connect();
    await siem.sendAlert({ ...alert, indicators: [{ type: 'domain', value: 'old-c2.example.com' }] });
    const element = harness.emulator.qradar.referenceSets
      .get('threatlib alert indicators')
      ?.elements.get('old-c2.example.com');
    (harness.emulator.qradar.events as QradarEvent[]).length = 0;
    const enriched = await siem.enrichIndicator({ type: 'domain', value: 'old-c2.example.com' });
    expect(enriched).toEqual({
      indicator: 'old-c2.example.com',
      firstSeen: new Date(element?.first_seen ?? 0).toISOString(),
      lastSeen: new Date(element?.last_seen ?? 0).toISOString(),
      associatedEvents: 0,
      riskScore: 0,
    });
  });

  it('enrichment without a riskScore property takes the events’ magnitude, and the AQL names no such property', async () => {
    harness = await qradarHarness({ qradar: { customProperties: [] } });
    const siem = connect({ enrichment: { riskScoreProperty: false } });
    await siem.sendAlert({ ...alert, severity: 'medium', indicators: [{ type: 'domain', value: 'mid.example.com' }] });
    expect((await siem.enrichIndicator({ type: 'domain', value: 'mid.example.com' })).riskScore).toBe(5);
    expect(harness.emulator.qradar.searches.at(-1)?.query_expression).not.toContain('riskScore');
    // With the property asked for but not defined on this QRadar, Ariel refuses the AQL and the message says why.
    const error = await failure(connect().enrichIndicator({ type: 'domain', value: 'never.example.com' }));
    expect(error.message).toMatch(
      /creating an Ariel search: HTTP 422: "riskScore" is not a valid event field or custom property/,
    );
  });

  it('polls an Ariel search that ignores Prefer: wait every pollInterval until it is COMPLETED', async () => {
    harness = await qradarHarness({ qradar: { arielPolls: 3, honourPreferWait: false } });
    const siem = connect();
    await siem.sendAlert(alert);
    const enriched = await siem.enrichIndicator({ type: 'ip', value: '198.51.100.7' });
    expect(enriched.associatedEvents).toBe(1);
    const polls = harness.emulator.requests.filter((r) => /^\/api\/ariel\/searches\/[^/]+$/.test(r.path));
    expect(polls).toHaveLength(4);
    for (const poll of polls) expect(poll.headers.prefer).toBe('wait=5');
  });

  it('refuses its own options with the path and the reason', () => {
    const base = { platform: 'siem_b', host: 'qradar.example.com', credentials: { token: 't' } } as const;
    expect(() => new SIEMConnector({ ...base, apiVersion: 'latest' })).toThrow(
      /Configuration invalid: apiVersion: expected a QRadar API version such as 22\.0/,
    );
    expect(() => new SIEMConnector({ ...base, syslog: { protocol: 'udp' } })).toThrow(/syslog\.protocol/);
    expect(() => new SIEMConnector({ ...base, referenceSets: { alerts: 'a/b' } })).toThrow(/referenceSets\.alerts/);
  });
});
