// The scan table as a file: CSV and JSON written here, a STIX 2.1 bundle written by the server (core's toStixBundle,
// through POST /stix/bundle) so the page never has its own idea of a STIX pattern.
import { request } from './api.js';
import type { ScanResult } from './types.js';

const CSV_COLUMNS = ['indicator', 'type', 'verdict', 'isThreat', 'riskScore', 'confidence', 'consensus', 'startedAt'];

/** One CSV field: quoted when needed, and a leading `=`, `+`, `-` or `@` neutralised (no formula in a spreadsheet). */
function csvField(value: unknown): string {
  let text = String(value ?? '');
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The verdicts as CSV (RFC 4180, a header line, CRLF). */
export function toCsv(results: readonly ScanResult[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const result of results) {
    lines.push(CSV_COLUMNS.map((column) => csvField(result[column as keyof ScanResult])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** The verdicts as a STIX 2.1 bundle, written by the server. */
export async function toStix(results: readonly ScanResult[]): Promise<unknown> {
  return (await request<unknown>('POST', 'stix/bundle', { correlations: results })).body;
}

/** Offers `text` to the analyst as a file named `name`. */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
