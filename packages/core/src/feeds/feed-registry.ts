import { ConfigurationError } from '../errors/configuration-error.js';
import { INDICATOR_TYPES } from '../indicators/index.js';
import type { Feed } from './feed.js';

/** Checks that a value implements the {@link Feed} contract, naming what is wrong. */
function assertFeed(feed: unknown): asserts feed is Feed {
  const problems: string[] = [];
  const f = (typeof feed === 'object' && feed !== null ? feed : {}) as Record<string, unknown>;
  const label = typeof f.id === 'string' ? `feed "${f.id}"` : 'feed';
  if (typeof feed !== 'object' || feed === null) problems.push('expected an object implementing Feed');
  else {
    if (f.specificationVersion !== 'v1')
      problems.push(`specificationVersion must be "v1", got ${JSON.stringify(f.specificationVersion)}`);
    if (typeof f.id !== 'string' || !/^[a-z][a-z0-9_-]{0,63}$/.test(f.id)) {
      problems.push('id must be lower-case letters, digits, "_" or "-", starting with a letter');
    } else if (f.id.startsWith('list') || f.id.startsWith('warninglist')) {
      problems.push('ids starting with "list" or "warninglist" are reserved for local lists');
    }
    if (typeof f.name !== 'string' || f.name === '') problems.push('name must be a non-empty string');
    if (
      !Array.isArray(f.supportedTypes) ||
      f.supportedTypes.length === 0 ||
      !f.supportedTypes.every((t) => (INDICATOR_TYPES as readonly unknown[]).includes(t))
    ) {
      problems.push(`supportedTypes must list indicator types from ${INDICATOR_TYPES.join(', ')}`);
    }
    if (typeof f.requiresKey !== 'boolean') problems.push('requiresKey must be a boolean');
    if (typeof f.defaultEndpoint !== 'string' || !URL.canParse(f.defaultEndpoint)) {
      problems.push('defaultEndpoint must be an absolute URL');
    }
    if (typeof f.lookup !== 'function') problems.push('lookup must be a function');
  }
  if (problems.length > 0) {
    throw new ConfigurationError(problems.map((message) => ({ path: label, message })));
  }
}

/** The feeds a client can ask, by id: the built-in ones and those registered with `client.registerFeed`. */
export class FeedRegistry {
  readonly #feeds = new Map<string, Feed>();

  constructor(feeds: Iterable<Feed> = []) {
    for (const feed of feeds) this.add(feed);
  }

  /** Adds a feed after checking its contract. @throws {ConfigurationError} if invalid or its id is taken. */
  add(feed: Feed): void {
    assertFeed(feed);
    if (this.#feeds.has(feed.id)) {
      throw new ConfigurationError([
        { path: `feed "${feed.id}"`, message: 'a feed with this id is already registered' },
      ]);
    }
    this.#feeds.set(feed.id, feed);
  }

  get(id: string): Feed | undefined {
    return this.#feeds.get(id);
  }

  has(id: string): boolean {
    return this.#feeds.has(id);
  }

  /** Every registered feed, in registration order. */
  all(): Feed[] {
    return [...this.#feeds.values()];
  }
}
