// The README's first example, as a file `pnpm typecheck` compiles under the strict options users have, and run here
// as a user runs it: with OTX_KEY unset, it must start and stop (the feed is only not configured), not throw.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('./quick-start.ts', import.meta.url), 'utf8');

describe("the README's first example (examples/quick-start.ts)", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('is the code the README shows', () => {
    const first = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(first).toBe(example);
  });

  it('runs with OTX_KEY unset', async () => {
    vi.stubEnv('OTX_KEY', undefined);
    // Nothing of the machine's own threatlib setup may change what the example does.
    for (const name of Object.keys(process.env)) if (name.startsWith('THREATLIB_')) vi.stubEnv(name, undefined);
    vi.stubEnv('THREATLIB_PROFILE', undefined);
    await expect(import('./quick-start.js')).resolves.toBeDefined();
  });
});
