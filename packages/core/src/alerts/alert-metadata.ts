import { utf8Length } from '../bytes/host-bytes.js';

/**
 * The most an alert's `metadata` may weigh, in bytes of its JSON (UTF-8): 64 KiB. Metadata is free-form, so
 * without a cap one alert could hold a store's whole memory budget.
 */
export const ALERT_METADATA_MAX_BYTES = 64 * 1024;

/** `metadata` as JSON text, or why it cannot be: a cycle, a BigInt, or nesting deeper than the stack allows. */
function metadataJson(metadata: Record<string, unknown>): { json: string } | { problem: string } {
  try {
    return { json: JSON.stringify(metadata) };
  } catch (error) {
    const reason =
      error instanceof RangeError ? 'nested too deeply' : error instanceof TypeError ? error.message : 'unknown';
    return { problem: `not JSON (${reason})` };
  }
}

/** Why `metadata` is refused (not JSON, or over {@link ALERT_METADATA_MAX_BYTES}), or undefined when it is fine. */
export function metadataProblem(metadata: Record<string, unknown>): string | undefined {
  const result = metadataJson(metadata);
  if ('problem' in result) return result.problem;
  // A string's UTF-8 length is at most 3 bytes per UTF-16 unit: skip the count when it cannot be over.
  if (result.json.length * 3 <= ALERT_METADATA_MAX_BYTES) return undefined;
  const bytes = utf8Length(result.json);
  return bytes > ALERT_METADATA_MAX_BYTES
    ? `at most ${ALERT_METADATA_MAX_BYTES} bytes as JSON; this is ${bytes}`
    : undefined;
}
