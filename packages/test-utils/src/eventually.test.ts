import { expect, it } from 'vitest';
import { eventually } from './eventually.js';

it('resolves once the condition holds, sync or async', async () => {
  let calls = 0;
  await eventually(() => ++calls >= 3, 'three calls');
  expect(calls).toBe(3);
  await eventually(async () => true, 'an async condition');
});

it('rejects after its deadline, naming what it waited for', async () => {
  await expect(eventually(() => false, 'the thing', 30)).rejects.toThrow('timed out after 30 ms waiting for the thing');
});
