// Runs in a consumer project where @threatlib/cloud is installed with only its Azure SDKs: a CloudSiemIntegration of
// SENTINEL_OPTIONS (JSON: the documented options, a client secret given as options) creates one indicator, and the
// answer is printed as one JSON line.
import { CloudSiemIntegration, type CloudSiemIntegrationOptions } from '@threatlib/cloud';

const sentinel = new CloudSiemIntegration(
  JSON.parse(process.env.SENTINEL_OPTIONS ?? '{}') as CloudSiemIntegrationOptions,
);
try {
  const created = await sentinel.createIndicator({
    pattern: "[ipv4-addr:value = '192.168.1.100']",
    labels: ['malicious-activity'],
    confidence: 85,
    threatTypes: ['malware'],
  });
  console.log(JSON.stringify(created));
} finally {
  await sentinel.stop();
}
