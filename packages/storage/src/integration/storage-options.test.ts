import { ConfigurationError } from '@threatlib/core';
import { describe, expect, it } from 'vitest';
import { parseStorageOptions } from './storage-options.js';

describe('parseStorageOptions', () => {
  // Issue 21, finding 4: the options were split into the integration's and the back end's by assignment, so a
  // "__proto__" key became the back end options' prototype and its fields were read as options.
  it('refuses a "__proto__" key rather than read its fields as options', () => {
    const options = JSON.parse(
      '{"type":"mongodb","__proto__":{"uri":"mongodb://198.51.100.7:27017","database":"elsewhere"}}',
    );
    let error: unknown;
    try {
      parseStorageOptions(options, 'integrations.storage');
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    const paths = (error as ConfigurationError).issues.map((issue) => issue.path);
    expect(paths).toContain('integrations.storage.uri');
    expect(paths).toContain('integrations.storage.__proto__');
  });
});
