import type { IncomingHttpHeaders } from 'node:http';
import type { EmulatorResponse } from '../vendor.js';

/** The workspace an emulated Azure Resource Manager call must name. */
export interface ArmWorkspace {
  subscriptionId: string;
  resourceGroup: string;
  workspaceName: string;
}

/** An Azure Resource Manager error, as ARM writes it: `{error: {code, message}}`. */
export function armFailure(status: number, code: string, message: string): EmulatorResponse {
  return { status, body: { error: { code, message } } };
}

/** ARM's answer to a method the resource does not take. */
export function armMethodNotAllowed(method: string): EmulatorResponse {
  return armFailure(405, 'MethodNotAllowed', `The requested resource does not support http method '${method}'.`);
}

/** ARM's first check: `api-version` given and one the resource type has. Undefined when it passes. */
export function checkArmApiVersion(query: URLSearchParams, versions: readonly string[]): EmulatorResponse | undefined {
  const apiVersion = query.get('api-version');
  if (!apiVersion) {
    return armFailure(
      400,
      'MissingApiVersionParameter',
      'The api-version query parameter (?api-version=) is required for all requests.',
    );
  }
  if (!versions.includes(apiVersion)) {
    return armFailure(
      400,
      'InvalidApiVersionParameter',
      `The api-version '${apiVersion}' is invalid. The supported versions are '${versions.join(',')}'.`,
    );
  }
  return undefined;
}

/**
 * The subscription, resource group and workspace of the path against the emulated one (case-insensitive, as ARM
 * compares them), answered in ARM's order and words. Undefined when they match.
 */
export function checkArmWorkspace(
  named: { subscription: string; group: string; name: string },
  workspace: ArmWorkspace,
): EmulatorResponse | undefined {
  const { subscription, group, name } = named;
  if (subscription.toLowerCase() !== workspace.subscriptionId.toLowerCase()) {
    return armFailure(404, 'SubscriptionNotFound', `The subscription '${subscription}' could not be found.`);
  }
  if (group.toLowerCase() !== workspace.resourceGroup.toLowerCase()) {
    return armFailure(404, 'ResourceGroupNotFound', `Resource group '${group}' could not be found.`);
  }
  if (name.toLowerCase() !== workspace.workspaceName.toLowerCase()) {
    return armFailure(
      404,
      'ResourceNotFound',
      `The Resource 'Microsoft.OperationalInsights/workspaces/${name}' under resource group '${group}' was not found.`,
    );
  }
  return undefined;
}

/** A request body ARM takes: `application/json`, and JSON. Either the parsed body or ARM's refusal (415, 400). */
export function readArmJson(request: {
  headers: IncomingHttpHeaders;
  body: string;
}): { ok: true; body: unknown } | { ok: false; response: EmulatorResponse } {
  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/json')) {
    return {
      ok: false,
      response: armFailure(
        415,
        'UnsupportedMediaType',
        `The content media type '${type || '(none)'}' is not supported. Only 'application/json' is supported.`,
      ),
    };
  }
  try {
    return { ok: true, body: JSON.parse(request.body) };
  } catch (error) {
    return {
      ok: false,
      response: armFailure(
        400,
        'InvalidRequestContent',
        `The request content was invalid and could not be deserialized: '${(error as Error).message}'.`,
      ),
    };
  }
}

/**
 * ARM's 401 for a token the authority refused (`problem` as `EntraAuthority.check` says it), with the
 * `WWW-Authenticate` challenge and the failure cause the gateway adds.
 */
export function armAuthFailure(problem: string, detail: string, tenant: string): EmulatorResponse {
  const [code, message] =
    problem === 'missing'
      ? ['AuthenticationFailed', "Authentication failed. The 'Authorization' header is missing."]
      : problem === 'expired'
        ? ['ExpiredAuthenticationToken', detail]
        : problem === 'audience'
          ? [
              'InvalidAuthenticationTokenAudience',
              `The access token has been obtained for wrong audience or resource '${detail}'. It should exactly match with one of the allowed audiences 'https://management.core.windows.net/','https://management.core.windows.net','https://management.azure.com/','https://management.azure.com'.`,
            ]
          : problem === 'tenant'
            ? [
                'InvalidAuthenticationTokenTenant',
                `${detail} It must match the tenant 'https://sts.windows.net/${tenant}/' associated with this subscription. Please use the authority (URL) 'https://login.windows.net/${tenant}' to get the token.`,
              ]
            : ['InvalidAuthenticationToken', 'The access token is invalid.'];
  return {
    status: 401,
    headers: {
      'www-authenticate': `Bearer authorization_uri="https://login.windows.net/", error="invalid_token", error_description="${message.replace(/"/g, "'")}"`,
      'x-ms-failure-cause': 'gateway',
    },
    body: { error: { code, message } },
  };
}
