import { type HostBytes, hostView, utf8Bytes, utf8Text } from '../bytes/host-bytes.js';
import { nodeBuiltin } from '../runtime/node-builtin.js';
import { CacheError } from './cache-error.js';

/*
 * How the file and kvserver back ends store an entry: the UTF-8 JSON text of `{expiresAt, value}` (plus `key` in
 * files), gzip-compressed when the store's `compression` is on. A gzip stream always starts with the bytes 1f 8b and
 * JSON text never does (it starts with `{`), so the format marks itself: a reader decompresses whatever is
 * compressed whatever its own setting, and turning compression on or off never strands existing entries. It also
 * leaves files readable with `zcat` and `jq`.
 *
 * The module also loads in a page (the cluster's cache is reached from the main entry): gzip is Node's zlib where
 * there is Node.js, as it always was, and the platform's CompressionStream elsewhere. Both write and read the same
 * format (RFC 1952).
 */

/** What the codec uses of `node:zlib` (taken through `process.getBuiltinModule`, so a page's bundler never sees it). */
interface NodeZlib {
  gzip(data: Uint8Array, done: (error: Error | null, result: Uint8Array) => void): void;
  gunzip(data: Uint8Array, done: (error: Error | null, result: Uint8Array) => void): void;
}

/** `bytes` gzip-compressed (`gzip`) or decompressed (`gunzip`). */
async function gzipTransform(operation: 'gzip' | 'gunzip', bytes: Uint8Array): Promise<HostBytes> {
  const zlib = nodeBuiltin<NodeZlib>('node:zlib');
  if (zlib) {
    return hostView(
      await new Promise<Uint8Array>((resolve, reject) =>
        zlib[operation](bytes, (error, result) => (error ? reject(error) : resolve(result))),
      ),
    );
  }
  const stream = operation === 'gzip' ? new CompressionStream('gzip') : new DecompressionStream('gzip');
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  const output = new Response(new Blob([copy]).stream().pipeThrough(stream));
  return hostView(new Uint8Array(await output.arrayBuffer()));
}

const GZIP_MAGIC = [0x1f, 0x8b] as const;

/** An entry as stored by the file and kvserver back ends. */
export interface StoredEntry {
  expiresAt: number;
  value: unknown;
  /** The cache key, kept in files so that a file found under the wrong name reads as corrupt. */
  key?: string;
}

/**
 * The JSON text of `value`, or a `CacheError` when it has none (`undefined`, a function, a bigint, a cycle): a
 * value the cache cannot give back unchanged must fail loudly when stored, not come back as something else.
 */
function jsonText(value: unknown, backend: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new CacheError(`cannot cache a value that is not JSON: ${(error as Error).message}`, {
      backend,
      cause: error,
    });
  }
  if (text === undefined) {
    throw new CacheError(`cannot cache ${typeof value}: values must be JSON (objects, arrays, strings, numbers...)`, {
      backend,
    });
  }
  return text;
}

/** The bytes that store `entry`: JSON, gzip-compressed when `compress` is true. */
export async function encodeEntry(entry: StoredEntry, compress: boolean, backend: string): Promise<HostBytes> {
  // The value is checked on its own: inside the entry, an undefined value would silently vanish from the JSON.
  const value = jsonText(entry.value, backend);
  const key = entry.key === undefined ? '' : `"key":${JSON.stringify(entry.key)},`;
  const json = utf8Bytes(`{"expiresAt":${jsonText(entry.expiresAt, backend)},${key}"value":${value}}`);
  return compress ? gzipTransform('gzip', json) : json;
}

/**
 * The entry stored in `bytes`, compressed or not; undefined when the bytes are not an entry (truncated, not JSON,
 * wrong shape), which callers treat as a miss.
 */
export async function decodeEntry(bytes: Uint8Array): Promise<StoredEntry | undefined> {
  try {
    const compressed = bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
    const json = compressed ? await gzipTransform('gunzip', bytes) : bytes;
    const parsed: unknown = JSON.parse(utf8Text(json));
    if (typeof parsed !== 'object' || parsed === null || !('value' in parsed)) return undefined;
    const { expiresAt, value, key } = parsed as Record<string, unknown>;
    if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return undefined;
    if (key !== undefined && typeof key !== 'string') return undefined;
    return key === undefined ? { expiresAt, value } : { expiresAt, value, key };
  } catch {
    // Corruption is an expected state of a cache (a disk filled mid-write by another tool, a key written by
    // something else): the entry is simply not there.
    return undefined;
  }
}
