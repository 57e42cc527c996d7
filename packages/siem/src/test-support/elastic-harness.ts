import { type RunningSiemEmulator, startSiemEmulator } from '@threatlib/siem-emulator';
import {
  documents,
  dropIndex,
  E2E_ELASTICSEARCH,
  E2E_ELASTICSEARCH_ADDRESS,
  elasticsearch,
  uniqueIndex,
} from '@threatlib/test-utils/elasticsearch';
import type { SiemHarness } from '../compliance/siem-compliance.test-suite.js';
import type { SiemConnectorOptions } from '../connector/connector-options.js';
import { alertIndexTemplate } from '../platforms/elastic/alert-index-template.js';
import { closedPort } from './closed-port.js';
import { type ElasticsearchProxy, startElasticsearchProxy } from './elasticsearch-proxy.js';

/** The value an ECS `threat.indicator` object holds, by its `type`. */
function indicatorValue(indicator: Record<string, unknown>): string | undefined {
  const url = indicator.url as { full?: string; domain?: string } | undefined;
  const hash = (indicator.file as { hash?: Record<string, string> } | undefined)?.hash;
  switch (indicator.type) {
    case 'ipv4-addr':
    case 'ipv6-addr':
      return indicator.ip as string;
    case 'domain-name':
      return url?.domain;
    case 'url':
      return url?.full;
    case 'file':
      return hash?.sha256 ?? hash?.sha1 ?? hash?.md5;
    case 'email-addr':
      return (indicator.email as { address?: string } | undefined)?.address;
    default:
      return undefined;
  }
}

/** The indicator values of an alert document. */
function documentIndicators(source: Record<string, unknown>): string[] {
  const indicator = (source.threat as { indicator?: unknown } | undefined)?.indicator;
  const list = indicator === undefined ? [] : Array.isArray(indicator) ? indicator : [indicator];
  return list
    .map((item) => indicatorValue(item as Record<string, unknown>))
    .filter((v): v is string => v !== undefined);
}

/**
 * The real Elasticsearch (through a proxy that injects its faults) and the Kibana emulator, as a compliance harness:
 * each harness writes to an index of its own, deleted with its template on close.
 */
export async function elasticHarness(): Promise<
  SiemHarness & { emulator: RunningSiemEmulator; proxy: ElasticsearchProxy; index: string }
> {
  const emulator = await startSiemEmulator({
    tls: false,
    kibana: { users: { [E2E_ELASTICSEARCH.auth.username]: E2E_ELASTICSEARCH.auth.password } },
  });
  const proxy = await startElasticsearchProxy(E2E_ELASTICSEARCH_ADDRESS);
  const down = await closedPort();
  const index = uniqueIndex('compliance');
  // The index exists before the tests, as in a running deployment: the suite checks the delivery, not the first
  // index creation (which the connector's own tests cover).
  await elasticsearch('PUT', `/_index_template/${index}`, alertIndexTemplate(index));
  const created = await elasticsearch('PUT', `/${index}?wait_for_active_shards=1`);
  if (created.status !== 200) throw new Error(`could not create ${index}: ${JSON.stringify(created.json)}`);
  const wrongPassword = 'not-the-password-5b7e';
  const options: SiemConnectorOptions = {
    platform: 'siem_c',
    host: proxy.host,
    port: proxy.port,
    protocol: 'http',
    enforceHttps: false,
    credentials: E2E_ELASTICSEARCH.auth,
    index,
    kibana: { port: emulator.port },
  };
  return {
    emulator,
    proxy,
    index,
    options,
    secrets: [E2E_ELASTICSEARCH.auth.password, wrongPassword],
    badCredentials: { credentials: { username: E2E_ELASTICSEARCH.auth.username, password: wrongPassword } },
    down: { port: down },
    async alerts() {
      return [...(await documents(index)).values()].map((source) => ({
        title: (source.rule as { name: string }).name,
        severity: (source.threatlib as { alert: { severity: string } }).alert.severity,
        indicators: documentIndicators(source),
      }));
    },
    async caseById(id) {
      const found = emulator.kibana.cases.find((c) => c.id === id);
      if (!found) return undefined;
      return {
        title: found.title,
        indicators: found.tags.filter((tag) => tag.startsWith('ioc:')).map((tag) => tag.slice('ioc:'.length)),
      };
    },
    failNext(count, fault) {
      proxy.failNext(count, { kind: fault });
    },
    hung: () => proxy.hung(),
    async settle() {
      await elasticsearch('POST', `/${index}/_refresh?ignore_unavailable=true`);
    },
    async close() {
      await proxy.close();
      await emulator.close();
      await dropIndex(index);
    },
  };
}
