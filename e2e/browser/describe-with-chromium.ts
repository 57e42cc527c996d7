// `describe` for tests that need Chromium (chromium.ts), as describeWithServices is for tests that need a server.
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { CHROMIUM, chromiumMissing } from './chromium.js';

/**
 * Runs `body` when Chromium is installed. When it is missing, the tests are skipped, with the reason and the install
 * command as the skipped test's name, if `THREATLIB_E2E` is unset; if it is set (CI, `./dev test`), one failing test
 * says so instead.
 */
export function describeWithChromium(title: string, body: () => void): void {
  describe(title, () => {
    if (existsSync(CHROMIUM)) {
      body();
      return;
    }
    if (!process.env.THREATLIB_E2E) {
      it.skip(`needs ${chromiumMissing()}; THREATLIB_E2E=1 makes this fail instead`);
      return;
    }
    it('needs Chromium', () => {
      throw new Error(`THREATLIB_E2E is set but ${chromiumMissing()}`);
    });
  });
}
