import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagesFrom, CORE_SRC as SRC } from '../entry-graph.test-suite.js';

/** Every package the modules reachable from `entry` import at run time, on first use included. */
const runtimePackages = (entry: string) => packagesFrom(entry, { dynamic: true });

describe("core's main entry", () => {
  it('never imports prom-client nor nodemailer: metrics are a subpath, nodemailer loads only for e-mail alerts', async () => {
    const packages = await runtimePackages(resolve(SRC, 'index.ts'));
    expect(packages).not.toContain('prom-client');
    expect(packages).not.toContain('nodemailer');
    // The scan does follow the graph: the client's own packages are found.
    expect(packages).toContain('undici');
    expect(await runtimePackages(resolve(SRC, 'metrics/index.ts'))).toContain('prom-client');
  });

  it('nor does the integration entry, and neither loads vitest: the compliance suites are the testing entry', async () => {
    const integration = await runtimePackages(resolve(SRC, 'integration/index.ts'));
    expect(integration).toContain('undici');
    for (const packages of [integration, await runtimePackages(resolve(SRC, 'index.ts'))]) {
      expect(packages).not.toContain('prom-client');
      expect(packages).not.toContain('nodemailer');
      expect(packages).not.toContain('vitest');
    }
    expect(await runtimePackages(resolve(SRC, 'testing/index.ts'))).toContain('vitest');
  });
});
