// The consumer check: every published package packed with `pnpm pack`, installed with npm from the tarballs into empty
// projects (each integration alone with core, each SIEM and cloud platform alone with only its SDK, then everything
// together), type-checked with strict TypeScript (NodeNext) and run: the README's first example of each package, and
// each platform's connector against its stand-in. What the examples reach: the e2e services (RabbitMQ, FerretDB,
// Elasticsearch, moto) and the emulators (@threatlib/siem-emulator, @threatlib/cloud-emulator), whose addresses the
// README examples read from the environment. npm's downloads come from the machine's npm cache when it has them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { copyFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import {
  GUARDDUTY_TEST_KEY,
  type RunningGuardDutyEmulator,
  type RunningSentinelEmulator,
  startGuardDutyEmulator,
  startSentinelEmulator,
} from '@threatlib/cloud-emulator';
import {
  CHRONICLE_DEFAULTS,
  QRADAR_DEFAULTS,
  type RunningSiemEmulator,
  SENTINEL_DEFAULTS,
  SPLUNK_DEFAULTS,
  startSiemEmulator,
  TEST_CA,
} from '@threatlib/siem-emulator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWith, servicePort } from '../interface/support.js';
import {
  diskUsage,
  firstTypeScriptExample,
  inParallel,
  installProject,
  type Outcome,
  type PackedPackage,
  packAll,
  run,
  runCompiled,
  typecheck,
} from './consumer-project.js';

const SCRIPTS = fileURLToPath(new URL('./scripts/', import.meta.url));
const MIB = 1024 * 1024;

/** The packages whose README's first example runs, and the project each runs in alone. */
const README_PROJECTS = {
  core: 'core',
  siem: 'siem',
  cloud: 'cloud-aws',
  queue: 'queue',
  server: 'server',
  storage: 'storage',
  webhooks: 'webhooks',
} as const;
type ReadmePackage = keyof typeof README_PROJECTS;

/** The SDK packages (optional peers) of each platform, as the packed manifests range them. */
const PLATFORM_SDKS = {
  'siem-elastic': ['@threatlib/siem', ['@elastic/elasticsearch']],
  'siem-sentinel': [
    '@threatlib/siem',
    ['@azure/identity', '@azure/monitor-ingestion', '@azure/monitor-query-logs', '@azure/arm-securityinsight'],
  ],
  'siem-chronicle': ['@threatlib/siem', ['google-auth-library']],
  'cloud-aws': ['@threatlib/cloud', ['@aws-sdk/client-guardduty', '@aws-sdk/client-s3']],
  'cloud-azure': ['@threatlib/cloud', ['@azure/core-rest-pipeline', '@azure/identity']],
} as const;

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The lines of a tsc run about one file (`readme-core.ts(5,14): error ...`), with their continuation lines. */
function errorsOf(outcome: Outcome, file: string): string {
  const lines = outcome.stdout.split('\n');
  const mine: string[] = [];
  let inMine = false;
  for (const line of lines) {
    if (/^\S/.test(line)) inMine = line.startsWith(`${file}(`) || line.includes(`/${file}(`);
    if (inMine) mine.push(line);
  }
  return mine.join('\n');
}

describeWith(
  ['rabbitmq', 'ferretdb', 'elasticsearch', 'moto'],
  'the published packages, installed with npm from their tarballs',
  () => {
    const work = mkdtempSync(join(tmpdir(), 'threatlib-consumer-'));
    const project = (name: string) => join(work, name);
    const timings: Record<string, number> = {};
    const typechecks = new Map<string, Outcome>();
    let packed: Map<string, PackedPackage>;
    let siemEmulator: RunningSiemEmulator;
    let kibana: RunningSiemEmulator;
    let guardDuty: RunningGuardDutyEmulator;
    let sentinelTi: RunningSentinelEmulator;
    const caFile = join(work, 'test-ca.pem');
    const started = performance.now();
    /** The index siem_c writes its alerts to (and the index template it puts, named after it): removed afterwards. */
    const elasticIndex = `threatlib-consumer-${process.pid}-${Date.now()}`;
    const elasticsearch = (method: string, path: string) =>
      fetch(`http://127.0.0.1:${servicePort('elasticsearch')}${path}`, {
        method,
        headers: { authorization: `Basic ${Buffer.from('threatlib:threatlib-e2e-password').toString('base64')}` },
      });

    /** The files each project holds (copied scripts and README examples), type-checked together. */
    const files: Record<string, string[]> = {
      core: ['readme-core.ts'],
      siem: ['readme-siem.ts', 'siem-platform.ts', 'missing-sdks.ts'],
      'siem-elastic': ['siem-platform.ts'],
      'siem-sentinel': ['siem-platform.ts'],
      'siem-chronicle': ['siem-platform.ts'],
      'cloud-aws': ['readme-cloud.ts'],
      'cloud-azure': ['cloud-sentinel.ts'],
      queue: ['readme-queue.ts'],
      server: ['readme-server.ts'],
      storage: ['readme-storage.ts'],
      webhooks: ['readme-webhooks.ts'],
      all: Object.keys(README_PROJECTS).map((name) => `readme-${name}.ts`),
    };
    // The project with everything installed checks the packages' own declarations too (skipLibCheck: false); the
    // others are checked as tsc --init sets a project up (skipLibCheck: true), which is also what a one-vendor cloud
    // project needs (its declarations name both vendors' SDK types: README, "TypeScript"), and keeps the check fast.
    const fullCheck = new Set(['all']);

    beforeAll(async () => {
      let t = performance.now();
      packed = await packAll(join(work, 'tarballs'));
      timings.pack = Math.round(performance.now() - t);
      const tarball = (name: string) => (packed.get(name) as PackedPackage).tarball;
      const peer = (owner: string, name: string) =>
        `${name}@${(packed.get(owner) as PackedPackage).manifest.peerDependencies?.[name]}`;
      const sdks = (key: keyof typeof PLATFORM_SDKS) => {
        const [owner, names] = PLATFORM_SDKS[key];
        return names.map((name) => peer(owner, name));
      };
      const core = tarball('@threatlib/core');
      const siem = tarball('@threatlib/siem');
      const cloud = tarball('@threatlib/cloud');
      const installs: Record<string, string[]> = {
        core: [core],
        siem: [core, siem],
        'siem-elastic': [core, siem, ...sdks('siem-elastic')],
        'siem-sentinel': [core, siem, ...sdks('siem-sentinel')],
        'siem-chronicle': [core, siem, ...sdks('siem-chronicle')],
        'cloud-aws': [core, cloud, ...sdks('cloud-aws')],
        'cloud-azure': [core, cloud, ...sdks('cloud-azure')],
        queue: [core, tarball('@threatlib/queue')],
        server: [core, tarball('@threatlib/server')],
        storage: [core, tarball('@threatlib/storage')],
        webhooks: [core, tarball('@threatlib/webhooks')],
        // Everything, with the SDKs the cloud README's example and the cloud declarations need.
        all: [
          ...[...packed.values()].map((p) => p.tarball),
          ...sdks('cloud-aws'),
          ...sdks('cloud-azure'),
          peer('@threatlib/cloud', '@azure/arm-securityinsight'),
        ],
      };
      // Each project is type-checked as soon as it is installed, so that one's compiling overlaps another's download.
      t = performance.now();
      await inParallel(Object.entries(installs), 4, async ([name, specs]) => {
        const dir = project(name);
        timings[`install ${name}`] = (await installProject(dir, specs)).ms;
        for (const file of files[name] ?? []) {
          const readme = /^readme-(\w+)\.ts$/.exec(file)?.[1];
          if (readme) await writeFile(join(dir, file), firstTypeScriptExample(readme));
          else await copyFile(join(SCRIPTS, file), join(dir, file));
        }
        const checked = await typecheck(dir, files[name] ?? [], { skipLibCheck: !fullCheck.has(name) });
        timings[`typecheck ${name}`] = checked.ms;
        typechecks.set(name, checked);
      });
      timings.installsAndTypechecks = Math.round(performance.now() - t);

      siemEmulator = await startSiemEmulator({
        splunk: { users: { [SPLUNK_DEFAULTS.username]: SPLUNK_DEFAULTS.password, 'svc-threatlib': 'readme-password' } },
      });
      kibana = await startSiemEmulator({
        tls: false,
        kibana: { users: { threatlib: 'threatlib-e2e-password' } },
      });
      guardDuty = await startGuardDutyEmulator();
      sentinelTi = await startSentinelEmulator();
      writeFileSync(caFile, `${TEST_CA}\n${sentinelTi.ca}\n`);
    }, 1_200_000);

    afterAll(async () => {
      await siemEmulator?.close();
      await kibana?.close();
      await guardDuty?.close();
      await sentinelTi?.close();
      await elasticsearch('DELETE', `/${elasticIndex}?ignore_unavailable=true`);
      await elasticsearch('DELETE', `/_index_template/${elasticIndex}`);
      timings.total = Math.round(performance.now() - started);
      // The check's cost, for CI's budget: printed with the test output.
      console.log(`consumer check timings (ms): ${JSON.stringify(timings)}`);
      await rm(work, { recursive: true, force: true });
    }, 300_000);

    /** Node with the test authorities trusted (the emulators' HTTPS), as NODE_EXTRA_CA_CERTS does for a user. */
    const runIn = (name: string, file: string, env: Record<string, string> = {}) =>
      runCompiled(project(name), file, { NODE_EXTRA_CA_CERTS: caFile, ...env });

    const expectTypechecked = (name: string, file: string) => {
      const outcome = typechecks.get(name);
      expect(outcome, `no typecheck of ${name}`).toBeDefined();
      expect(errorsOf(outcome as Outcome, file), `tsc in ${name}: ${file}`).toBe('');
    };

    const expectRan = (outcome: Outcome, what: string) => {
      expect(outcome.code, `${what} exited with ${outcome.code}:\n${outcome.stderr}\n${outcome.stdout}`).toBe(0);
    };

    it('a Splunk-only install (core and siem) is under 50 MB, and holds no vendor SDK', async () => {
      const sizes: Record<string, string> = {};
      for (const name of Object.keys(files)) {
        sizes[name] = `${((await diskUsage(join(project(name), 'node_modules'))) / MIB).toFixed(1)} MiB`;
      }
      // What each install weighs, for the READMEs' figures.
      console.log(`node_modules of each project: ${JSON.stringify(sizes)}`);
      const bytes = await diskUsage(join(project('siem'), 'node_modules'));
      expect(bytes).toBeLessThan(50 * MIB);
      const listed = await run('npm', ['ls', '--all', '--parseable'], { cwd: project('siem'), timeoutMs: 60_000 });
      expect(listed.stdout).not.toMatch(/node_modules\/(@azure|@elastic\/elasticsearch|google-auth-library|@aws-sdk)/);
    }, 60_000);

    it('npm ls after installing every tarball together reports nothing extraneous, missing or invalid', async () => {
      const listed = await run('npm', ['ls', '--all'], { cwd: project('all'), timeoutMs: 60_000 });
      // An optional peer left out (`UNMET OPTIONAL DEPENDENCY`: nodemailer, the SDKs of unused platforms) is fine.
      expect(listed.stdout + listed.stderr).not.toMatch(/\b(extraneous|missing|invalid)\b|UNMET DEPENDENCY|npm error/i);
      expect(listed.code).toBe(0);
    }, 60_000);

    it('siem alone: the other platforms refuse to be built, naming the SDK to install', async () => {
      expectTypechecked('siem', 'missing-sdks.ts');
      const tls = { ca: TEST_CA };
      const missing = [
        { platform: 'siem_c', host: '127.0.0.1', credentials: { username: 'u', password: 'p' } },
        {
          platform: 'siem_d',
          host: '127.0.0.1',
          credentials: { username: SENTINEL_DEFAULTS.clientId, password: SENTINEL_DEFAULTS.clientSecret },
          tenantId: SENTINEL_DEFAULTS.tenantId,
          dataCollectionRuleId: SENTINEL_DEFAULTS.dataCollectionRuleId,
          workspaceId: SENTINEL_DEFAULTS.workspaceId,
          tls,
        },
        {
          platform: 'siem_e',
          host: '127.0.0.1',
          credentials: { token: JSON.stringify(siemEmulator.chronicle.serviceAccountKey(siemEmulator.url)) },
          project: CHRONICLE_DEFAULTS.project,
          location: CHRONICLE_DEFAULTS.location,
          instance: CHRONICLE_DEFAULTS.instance,
          tls,
        },
      ];
      const outcome = await runIn('siem', 'missing-sdks.ts', { MISSING: JSON.stringify(missing) });
      expectRan(outcome, 'missing-sdks');
      const peer = (name: string) => `${name}@${packed.get('@threatlib/siem')?.manifest.peerDependencies?.[name]}`;
      expect(JSON.parse(outcome.stdout)).toEqual({
        siem_c: {
          name: 'ConfigurationError',
          message: `Configuration invalid: platform: siem_c (Elastic) needs @elastic/elasticsearch, which is not installed: npm install '${peer('@elastic/elasticsearch')}'`,
        },
        siem_d: {
          name: 'ConfigurationError',
          message: `Configuration invalid: platform: siem_d (Microsoft Sentinel) needs @azure/monitor-ingestion, @azure/monitor-query-logs and @azure/identity, which are not installed: npm install '${peer('@azure/monitor-ingestion')}' '${peer('@azure/monitor-query-logs')}' '${peer('@azure/identity')}'`,
        },
        siem_e: {
          name: 'ConfigurationError',
          message: `Configuration invalid: credentials: siem_e (Google SecOps) with a service account needs google-auth-library, which is not installed: npm install '${peer('google-auth-library')}'`,
        },
      });
    }, 60_000);

    const platforms: Array<{ name: string; project: string; cases: boolean; options: () => Record<string, unknown> }> =
      [
        {
          name: 'siem_a (Splunk)',
          project: 'siem',
          cases: true,
          options: () => ({
            platform: 'siem_a',
            host: siemEmulator.host,
            port: siemEmulator.port,
            credentials: { username: SPLUNK_DEFAULTS.username, password: SPLUNK_DEFAULTS.password },
            hec: { port: siemEmulator.port },
            tls: { ca: TEST_CA },
          }),
        },
        {
          name: 'siem_b (QRadar)',
          project: 'siem',
          cases: true,
          options: () => ({
            platform: 'siem_b',
            host: siemEmulator.host,
            port: siemEmulator.port,
            credentials: { token: QRADAR_DEFAULTS.token },
            syslog: { port: siemEmulator.qradar.syslogTlsPort },
            enrichment: { pollInterval: 5 },
            tls: { ca: TEST_CA },
          }),
        },
        {
          name: 'siem_c (Elastic)',
          project: 'siem-elastic',
          cases: true,
          options: () => ({
            platform: 'siem_c',
            host: '127.0.0.1',
            port: servicePort('elasticsearch'),
            protocol: 'http',
            enforceHttps: false,
            credentials: { username: 'threatlib', password: 'threatlib-e2e-password' },
            index: elasticIndex,
            kibana: { port: kibana.port },
          }),
        },
        {
          name: 'siem_d (Microsoft Sentinel)',
          project: 'siem-sentinel',
          cases: true,
          options: () => {
            const azure = `https://${siemEmulator.host}:${siemEmulator.port}`;
            return {
              platform: 'siem_d',
              host: siemEmulator.host,
              port: siemEmulator.port,
              credentials: { username: SENTINEL_DEFAULTS.clientId, password: SENTINEL_DEFAULTS.clientSecret },
              tenantId: SENTINEL_DEFAULTS.tenantId,
              dataCollectionRuleId: SENTINEL_DEFAULTS.dataCollectionRuleId,
              workspaceId: SENTINEL_DEFAULTS.workspaceId,
              subscriptionId: SENTINEL_DEFAULTS.subscriptionId,
              resourceGroup: SENTINEL_DEFAULTS.resourceGroup,
              workspaceName: SENTINEL_DEFAULTS.workspaceName,
              authorityHost: azure,
              logAnalyticsEndpoint: azure,
              armEndpoint: azure,
              tls: { ca: TEST_CA },
            };
          },
        },
        {
          name: 'siem_e (Google SecOps)',
          project: 'siem-chronicle',
          cases: false,
          options: () => ({
            platform: 'siem_e',
            host: siemEmulator.host,
            port: siemEmulator.port,
            credentials: { token: JSON.stringify(siemEmulator.chronicle.serviceAccountKey(siemEmulator.url)) },
            project: CHRONICLE_DEFAULTS.project,
            location: CHRONICLE_DEFAULTS.location,
            instance: CHRONICLE_DEFAULTS.instance,
            tls: { ca: TEST_CA },
          }),
        },
      ];

    for (const platform of platforms) {
      it(`${platform.name} alone, with only its SDK: tests its connection, sends an alert, enriches${platform.cases ? ', opens a case' : ''}`, async () => {
        expectTypechecked(platform.project, 'siem-platform.ts');
        const outcome = await runIn(platform.project, 'siem-platform.ts', {
          SIEM_OPTIONS: JSON.stringify(platform.options()),
          SIEM_CASES: platform.cases ? '1' : '0',
        });
        expectRan(outcome, platform.name);
        const report = JSON.parse(outcome.stdout) as Record<string, { accepted?: number; associatedEvents?: number }>;
        expect(report.delivery?.accepted).toBe(1);
        expect(report.enriched).toMatchObject({ indicator: '198.51.100.23' });
        if (platform.cases) expect(typeof report.caseId).toBe('string');
      }, 120_000);
    }

    it('cloud with the Azure SDKs alone: CloudSiemIntegration creates an indicator in Sentinel', async () => {
      expectTypechecked('cloud-azure', 'cloud-sentinel.ts');
      const { tenantId, clientId, clientSecret, subscriptionId, resourceGroup, workspaceName } =
        sentinelTi.sentinel.config;
      const options = {
        subscriptionId,
        resourceGroupName: resourceGroup,
        workspaceName,
        credentials: { tenantId, clientId, clientSecret, authorityHost: sentinelTi.url },
        endpoints: { threatIntelligence: sentinelTi.url, resourceManager: sentinelTi.url },
      };
      const outcome = await runIn('cloud-azure', 'cloud-sentinel.ts', { SENTINEL_OPTIONS: JSON.stringify(options) });
      expectRan(outcome, 'cloud-sentinel');
      expect(JSON.parse(outcome.stdout)).toMatchObject({ api: 'stix' });
      expect(sentinelTi.sentinel.objects.size).toBe(1);
    }, 120_000);

    /** The environment each README example reads its addresses and secrets from. */
    const readmeEnv = async (name: ReadmePackage): Promise<Record<string, string>> => {
      switch (name) {
        case 'siem':
          return {
            SPLUNK_HOST: siemEmulator.host,
            SPLUNK_PORT: String(siemEmulator.port),
            SPLUNK_HEC_PORT: String(siemEmulator.port),
            SPLUNK_PASSWORD: 'readme-password',
          };
        case 'cloud': {
          const moto = `http://127.0.0.1:${servicePort('moto')}`;
          const s3 = new S3Client({
            region: 'us-east-1',
            endpoint: moto,
            forcePathStyle: true,
            credentials: GUARDDUTY_TEST_KEY,
          });
          // The example writes to this bucket; moto answers that it exists when an earlier run made it.
          await s3.send(new CreateBucketCommand({ Bucket: 'my-threat-lists' })).catch(() => undefined);
          s3.destroy();
          // Each run creates the set named threatlib: the emulator forgets the previous run's.
          guardDuty.reset();
          return {
            AWS_ACCESS_KEY_ID: GUARDDUTY_TEST_KEY.accessKeyId,
            AWS_SECRET_ACCESS_KEY: GUARDDUTY_TEST_KEY.secretAccessKey,
            // The SDK's own variables for a service's endpoint.
            AWS_ENDPOINT_URL_S3: moto,
            AWS_ENDPOINT_URL_GUARDDUTY: guardDuty.url,
          };
        }
        case 'server':
          return { PORT: String(await freePort()), API_TOKEN: 'readme-token-0123456789abcdef0123456789' };
        case 'storage':
          return { MONGODB_URI: `mongodb://127.0.0.1:${servicePort('ferretdb')}` };
        case 'webhooks':
          return { WEBHOOKS_PORT: String(await freePort()), WEBHOOK_SECRET: 'readme-webhook-secret-0123456789abcdef' };
        default:
          return {};
      }
    };

    for (const name of Object.keys(README_PROJECTS) as ReadmePackage[]) {
      for (const where of [README_PROJECTS[name], 'all'] as const) {
        const alone = where !== 'all';
        it(`${name} README's first example, ${alone ? 'installed alone with core' : 'with every package installed'}: type-checks and runs`, async () => {
          // Run even when tsc found errors (it compiles all the same), and report both.
          const ran = await runIn(where, `readme-${name}.ts`, await readmeEnv(name));
          const outcome = typechecks.get(where);
          expect.soft(outcome && errorsOf(outcome, `readme-${name}.ts`), `tsc in ${where}`).toBe('');
          expectRan(ran, `${name} README example`);
        }, 120_000);
      }
    }
  },
);
