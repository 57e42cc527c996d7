import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagesFrom, CORE_SRC as SRC } from './entry-graph.test-suite.js';

// Issue 27 (import time): packages that only a rare first call needs are imported by that call, not when core is
// imported. Follows the main entry's relative imports (and the package's own `#` imports as Node resolves them),
// static ones only, or static and dynamic ones.

describe("core's main entry loads on first use what only a first call needs", () => {
  it('oauth4webapi (a token request) and the portable Argon2id (a vault without crypto.argon2)', async () => {
    const entry = resolve(SRC, 'index.ts');
    const atImport = await packagesFrom(entry, { dynamic: false });
    const atAll = await packagesFrom(entry, { dynamic: true });
    for (const lazy of ['oauth4webapi', '@noble/hashes/argon2.js']) {
      expect(atAll, `${lazy} is still reached, on first use`).toContain(lazy);
      expect(atImport, `${lazy} is not imported with core`).not.toContain(lazy);
    }
    // The scan does follow the static graph.
    expect(atImport).toContain('zod');
    expect(atImport).toContain('tldts');
  });
});
