// The pages of the browser tests reach nothing outside the machine: every request to another origin is refused
// before it leaves the browser, and the test that made it fails (e2e/browser/origin-guard.ts, browser-setup.ts).
/// <reference path="../../../../e2e/browser/browser-commands.d.ts" />
import { afterEach, describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import { assertNoRefusedRequests } from '../../../../e2e/browser/refused-requests.js';

describe('a page of the browser tests', () => {
  let other: string | undefined;
  afterEach(async () => {
    if (other) await commands.stopOtherOrigin(other);
    other = undefined;
  });

  it('never sends a request to another origin, even one that answers', async () => {
    other = await commands.startOtherOrigin();
    await expect(fetch(other)).rejects.toThrow(TypeError);
    await expect(fetch(`${other}image.png`, { mode: 'no-cors' })).rejects.toThrow(TypeError);
    expect(await commands.takeRefusedRequests()).toEqual([other, `${other}image.png`]);
    const url = other;
    other = undefined;
    expect(await commands.stopOtherOrigin(url)).toBe(0);
  });

  it('refuses a WebSocket to another origin', async () => {
    other = await commands.startOtherOrigin();
    const socketUrl = other.replace(/^http/, 'ws');
    const closed = await new Promise<number>((resolve) => {
      const socket = new WebSocket(socketUrl);
      socket.onclose = (event) => resolve(event.code);
    });
    expect(closed).not.toBe(1000);
    expect(await commands.takeRefusedRequests()).toEqual([socketUrl]);
    const url = other;
    other = undefined;
    expect(await commands.stopOtherOrigin(url)).toBe(0);
  });

  it('fails the test whose page asked for another origin, naming the URL, even when the code swallowed the error', async () => {
    other = await commands.startOtherOrigin();
    await fetch(`${other}swallowed`).catch(() => undefined);
    await expect(assertNoRefusedRequests()).rejects.toThrow(
      `asked for another origin (refused; nothing outside the machine is fetched): ${other}swallowed`,
    );
    await expect(assertNoRefusedRequests()).resolves.toBeUndefined();
  });

  it('reaches its own origin (the test server, serving this file)', async () => {
    const response = await fetch(import.meta.url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('reaches its own origin');
    expect(await commands.takeRefusedRequests()).toEqual([]);
  });
});
