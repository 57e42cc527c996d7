// What a browser project runs when Chromium is missing (browser-project.ts): one test that says so, skipped when
// THREATLIB_E2E is unset, failing when it is set.
import { describeWithChromium } from './describe-with-chromium.js';

describeWithChromium('the browser tests', () => {});
