// Runs in a consumer project where @threatlib/siem is installed from its tarball with only one platform's SDK: the
// connector of SIEM_OPTIONS (JSON) tests its connection, sends an alert, enriches an indicator and, with SIEM_CASES=1,
// opens a case, then prints what each call answered as one JSON line.
import { SIEMConnector, type SiemConnectorOptions } from '@threatlib/siem';

const options = JSON.parse(process.env.SIEM_OPTIONS ?? '{}') as SiemConnectorOptions;
const siem = new SIEMConnector(options);
const report: Record<string, unknown> = {};
try {
  report.connection = await siem.testConnection();
  report.delivery = await siem.sendAlert({
    title: 'Malicious IP contacted',
    severity: 'high',
    description: 'Outbound connection to a known C2 server',
    indicators: [{ type: 'ip', value: '198.51.100.23', confidence: 90 }],
    timestamp: new Date().toISOString(),
  });
  report.enriched = await siem.enrichIndicator({ type: 'ip', value: '198.51.100.23' });
  if (process.env.SIEM_CASES === '1') {
    report.caseId = await siem.createCase({
      title: 'Phishing campaign',
      description: 'Credential harvesting against finance',
      priority: 'critical',
      assignee: 'analyst@example.com',
      indicators: [{ type: 'domain', value: 'login-example.com', source: 'feed_urls' }],
    });
  }
} finally {
  await siem.stop();
}
console.log(JSON.stringify(report));
