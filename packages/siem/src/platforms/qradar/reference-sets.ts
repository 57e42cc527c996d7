// Indicators in QRadar reference sets, which rules and searches test events against. A set is created as ALNIC
// (alphanumeric, ignoring case: IP addresses, domains, URLs and hashes alike) when the first add finds it missing;
// one value is added with its source, several with one bulk load.
// - POST /reference_data/sets (201; 409 code 1004 when the name is in use):
//   https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--reference_data-sets-POST.html
// - POST /reference_data/sets/{name}?value=&source= (404 code 1002 when the set does not exist):
//   https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--reference_data-sets-name-POST.html
// - POST /reference_data/sets/bulk_load/{namespace}/{name}/{domain_id} with a JSON array. API versions 17.0 and later
//   document only this form; the older bulk_load/{name} is gone from them:
//   https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--reference_data-sets-bulk_load-namespace-name-domain_id-POST.html
// - GET /reference_data/sets/{name}?filter=value="..." (elements with first_seen and last_seen, epoch ms):
//   https://ibmsecuritydocs.github.io/qradar_api_20.0/20.0--reference_data-sets-name-GET.html
import type { SiemHttpResponse } from '../../connector/siem-http.js';
import type { PlatformCall } from '../platform.js';
import { QRADAR_CODE, readQradarError } from './qradar-answers.js';
import { type QradarApi, segment } from './qradar-api.js';

/** Most values sent in one bulk load. */
const BULK_LOAD_CHUNK = 1000;

/** The source QRadar records for a value threatlib added. */
const REFERENCE_SOURCE = 'threatlib';

/** An element of a reference set as QRadar returns it. */
export interface ReferenceElement {
  value: string;
  source?: string;
  /** Epoch ms. */
  first_seen?: number;
  /** Epoch ms. */
  last_seen?: number;
}

function isMissingSet(response: SiemHttpResponse): boolean {
  return response.statusCode === 404 && readQradarError(response).code === QRADAR_CODE.notFound;
}

/** Creates the set as ALNIC; a set already there (409, code 1004) is fine. */
async function createReferenceSet(api: QradarApi, call: PlatformCall, name: string): Promise<void> {
  const response = await api.send(call, {
    method: 'POST',
    path: '/reference_data/sets',
    query: { name, element_type: 'ALNIC' },
  });
  if (response.statusCode === 201) return;
  if (response.statusCode === 409 && readQradarError(response).code === QRADAR_CODE.nameInUse) return;
  throw api.failure(call, response, `creating reference set "${name}"`);
}

/** Makes sure the set exists (one authenticated call when it does). */
async function ensureReferenceSet(api: QradarApi, call: PlatformCall, name: string): Promise<void> {
  const response = await api.send(call, {
    method: 'GET',
    path: `/reference_data/sets/${segment(name)}`,
    query: { fields: 'name' },
    headers: { Range: 'items=0-0' },
  });
  if (response.statusCode === 200) return;
  if (isMissingSet(response)) return createReferenceSet(api, call, name);
  throw api.failure(call, response, `reading reference set "${name}"`);
}

/**
 * Adds `values` to the set (creating it when missing): one value with `source` threatlib, more with bulk loads of
 * at most {@link BULK_LOAD_CHUNK}. Values that differ only in case are sent once (the set ignores case).
 */
export async function addToReferenceSet(
  api: QradarApi,
  call: PlatformCall,
  name: string,
  values: readonly string[],
  domain: 'SHARED' | number,
): Promise<number> {
  const unique = [...new Map(values.map((value) => [value.toLowerCase(), value])).values()];
  if (unique.length === 0) return ensureReferenceSet(api, call, name).then(() => 0);
  const send = (chunk: readonly string[]) =>
    chunk.length === 1
      ? api.send(call, {
          method: 'POST',
          path: `/reference_data/sets/${segment(name)}`,
          query: { value: chunk[0] as string, source: REFERENCE_SOURCE },
        })
      : api.send(call, {
          method: 'POST',
          path: `/reference_data/sets/bulk_load/SHARED/${segment(name)}/${domain}`,
          json: chunk,
        });
  for (let start = 0; start < unique.length; start += BULK_LOAD_CHUNK) {
    const chunk = unique.slice(start, start + BULK_LOAD_CHUNK);
    let response = await send(chunk);
    if (isMissingSet(response)) {
      await createReferenceSet(api, call, name);
      response = await send(chunk);
    }
    if (response.statusCode !== 200) {
      throw api.failure(call, response, `adding ${chunk.length} indicator(s) to reference set "${name}"`);
    }
  }
  return unique.length;
}

/** The element `value` of the set, or undefined when the set or the element is not there. */
export async function findReferenceElement(
  api: QradarApi,
  call: PlatformCall,
  name: string,
  value: string,
): Promise<ReferenceElement | undefined> {
  const response = await api.send(call, {
    method: 'GET',
    path: `/reference_data/sets/${segment(name)}`,
    query: {
      filter: `value = "${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`,
      fields: 'data(value,first_seen,last_seen)',
    },
  });
  if (isMissingSet(response)) return undefined;
  if (response.statusCode !== 200) throw api.failure(call, response, `reading reference set "${name}"`);
  let body: { data?: ReferenceElement[] };
  try {
    body = JSON.parse(response.body) as { data?: ReferenceElement[] };
  } catch {
    throw call.errors.request(`reading reference set "${name}": QRadar's answer is not JSON`, { isRetryable: false });
  }
  return body.data?.find((element) => element.value.toLowerCase() === value.toLowerCase());
}
