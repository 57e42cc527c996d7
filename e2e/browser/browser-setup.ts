// The setupFile of a browser project (browser-project.ts): before a test file's own imports run, its page is guarded
// (every request to another origin refused), and each test, and the file as a whole, fails when its page asked for
// one.
/// <reference path="./browser-commands.d.ts" />
import { afterAll, afterEach } from 'vitest';
import { commands } from 'vitest/browser';
import { assertNoRefusedRequests } from './refused-requests.js';

await commands.guardOrigins();
afterEach(assertNoRefusedRequests);
afterAll(assertNoRefusedRequests);
