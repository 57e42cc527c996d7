import { describeWithElasticsearch } from '@threatlib/test-utils/elasticsearch';
import { runSiemComplianceSuite } from '../../compliance/siem-compliance.test-suite.js';
import { elasticHarness } from '../../test-support/elastic-harness.js';

describeWithElasticsearch('siem_c (Elastic) on the real Elasticsearch and the Kibana emulator', () => {
  runSiemComplianceSuite(() => elasticHarness());
});
