import { describe, expect, it } from 'vitest';
import { type CursorPage, pageWithinBudget } from './budgeted-page.js';

/** A store of `items` with cursors "after:<index>", counting the limits it was asked for. */
function store(items: Array<{ id: number; blob: string }>) {
  const asked: number[] = [];
  const list = async (limit: number, cursor?: string): Promise<CursorPage<(typeof items)[number]>> => {
    asked.push(limit);
    const start = cursor === undefined ? 0 : Number(cursor.slice('after:'.length)) + 1;
    const page = items.slice(start, start + limit);
    const last = start + page.length - 1;
    return { items: page, ...(last < items.length - 1 ? { nextCursor: `after:${last}` } : {}) };
  };
  return { list, asked };
}

const items = (n: number, size: number) => Array.from({ length: n }, (_, id) => ({ id, blob: 'x'.repeat(size) }));

describe('pageWithinBudget', () => {
  it('keeps a page that fits as the store gave it, asking once', async () => {
    const s = store(items(5, 100));
    const page = JSON.parse(await pageWithinBudget((limit) => s.list(limit), 10, 10_000));
    expect(page.items).toHaveLength(5);
    expect(page.nextCursor).toBeUndefined();
    expect(s.asked).toEqual([10]);
  });

  it('cuts a page at the budget with the store’s own cursor, and paging goes on from it', async () => {
    const s = store(items(20, 1_000));
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const text = await pageWithinBudget((limit) => s.list(limit, cursor), 500, 5_000);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(5_000);
      const page = JSON.parse(text);
      expect(page.items.length).toBeGreaterThan(0);
      seen.push(...page.items.map((item: { id: number }) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(s.asked.slice(0, 2)).toEqual([500, 4]);
  });

  it('gives one item even when it alone is over the budget', async () => {
    const s = store(items(3, 50_000));
    const page = JSON.parse(await pageWithinBudget((limit) => s.list(limit), 500, 1_000));
    expect(page.items.map((i: { id: number }) => i.id)).toEqual([0]);
    expect(page.nextCursor).toBe('after:0');
  });

  it('counts bytes, not characters', async () => {
    const s = store(Array.from({ length: 10 }, (_, id) => ({ id, blob: '\u{1F600}'.repeat(250) })));
    const text = await pageWithinBudget((limit) => s.list(limit), 500, 3_000);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(3_000);
    expect(JSON.parse(text).items.length).toBeLessThan(10);
  });
});
