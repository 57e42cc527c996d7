// The workspace GUID the upload API is addressed by, read from Azure Resource Manager when it was not configured, so
// that the documented constructor ({subscriptionId, resourceGroupName, workspaceName, credentials}) is enough.
// Source: Workspaces - Get (GET /subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.OperationalInsights/
// workspaces/{name}?api-version=2023-09-01; `properties.customerId` is the workspace id):
// https://learn.microsoft.com/en-us/rest/api/loganalytics/workspaces/get
import { CloudError } from '../errors/cloud-error.js';
import { answerFailure, thrownFailure } from './sentinel-failure.js';
import { WORKSPACE_API_VERSION } from './sentinel-options.js';
import type { SentinelRest } from './sentinel-rest.js';

const GUID = /^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i;

/** Where the workspace is in ARM. */
export interface WorkspaceAddress {
  resourceManager: string;
  subscriptionId: string;
  resourceGroupName: string;
  workspaceName: string;
}

/** Reads the workspace's GUID (`properties.customerId`). */
export async function readWorkspaceId(
  rest: SentinelRest,
  at: WorkspaceAddress,
  secrets: readonly string[],
  signal?: AbortSignal,
): Promise<string> {
  const url =
    `${at.resourceManager}/subscriptions/${encodeURIComponent(at.subscriptionId)}` +
    `/resourceGroups/${encodeURIComponent(at.resourceGroupName)}` +
    `/providers/Microsoft.OperationalInsights/workspaces/${encodeURIComponent(at.workspaceName)}` +
    `?api-version=${WORKSPACE_API_VERSION}`;
  let answer: Awaited<ReturnType<SentinelRest['send']>>;
  try {
    answer = await rest.send('GET', url, undefined, signal);
  } catch (error) {
    throw thrownFailure('GetWorkspace', error, secrets);
  }
  if (answer.status !== 200) throw answerFailure('GetWorkspace', answer.status, answer.body, secrets);
  let customerId: unknown;
  try {
    customerId = (JSON.parse(answer.body ?? '') as { properties?: { customerId?: unknown } }).properties?.customerId;
  } catch {
    customerId = undefined;
  }
  if (typeof customerId !== 'string' || !GUID.test(customerId)) {
    throw new CloudError(
      'sentinel',
      'GetWorkspace',
      `Log Analytics workspace read (for the workspace id) failed: the answer has no properties.customerId GUID; set workspaceId in the options`,
      { statusCode: 200, isRetryable: false },
    );
  }
  return customerId;
}
