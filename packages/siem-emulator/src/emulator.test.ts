import { request } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { type SiemEmulator, startEmulatorServer, TEST_CA } from './emulator.js';
import type { VendorEmulator } from './vendor.js';

const echo: VendorEmulator = {
  vendor: 'splunk',
  handles: (r) => r.path.startsWith('/echo'),
  handle: (r) => ({ status: 200, body: { got: r.body } }),
  busy: () => ({ status: 503, body: { text: 'Server is busy', code: 9 } }),
  reset() {},
};

function get(emulator: SiemEmulator, path: string, body = ''): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emulator.url}${path}`, { method: 'POST', ca: TEST_CA }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the SIEM emulator server', () => {
  let emulator: SiemEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
  });

  it('serves HTTPS with a certificate the bundled test CA signed, routes by path and records requests', async () => {
    emulator = await startEmulatorServer([echo]);
    expect(emulator.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(await get(emulator, '/echo', 'hello')).toEqual({ status: 200, text: '{"got":"hello"}' });
    expect(await get(emulator, '/nowhere')).toMatchObject({ status: 404 });
    expect(emulator.requests.map((r) => [r.vendor, r.path, r.status])).toEqual([
      ['splunk', '/echo', 200],
      [undefined, '/nowhere', 404],
    ]);
  });

  it('answers injected faults with the vendor’s own busy answer, then serves normally', async () => {
    emulator = await startEmulatorServer([echo]);
    emulator.failNext(1, 'busy');
    expect(await get(emulator, '/echo')).toEqual({ status: 503, text: '{"text":"Server is busy","code":9}' });
    expect(await get(emulator, '/echo', 'x')).toMatchObject({ status: 200 });
    emulator.failNext(1, 'reset');
    await expect(get(emulator, '/echo')).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
