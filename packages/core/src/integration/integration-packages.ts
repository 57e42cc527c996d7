/** Where the integration of one `integrations` key comes from. */
export interface IntegrationPackage {
  /** The npm package to install. */
  readonly package: string;
  /** The {@link IntegrationFactory} it exports for this key. */
  readonly factory: string;
}

/**
 * The keys of `integrations` that `client.start()` builds, each with the package that implements it and the factory
 * that package exports for it: `create` + the key with a capital first letter + `Integration`. `@threatlib/cloud`
 * serves two keys, with one factory each.
 *
 * The order is the start order (and `stop()` goes the other way): where alerts go (storage, a SIEM, the cloud) is up
 * before what brings indicators in (webhooks, the queue), and what brings them in stops first.
 */
export const INTEGRATION_PACKAGES = {
  storage: { package: '@threatlib/storage', factory: 'createStorageIntegration' },
  siem: { package: '@threatlib/siem', factory: 'createSiemIntegration' },
  cloud: { package: '@threatlib/cloud', factory: 'createCloudIntegration' },
  cloudSiem: { package: '@threatlib/cloud', factory: 'createCloudSiemIntegration' },
  webhooks: { package: '@threatlib/webhooks', factory: 'createWebhooksIntegration' },
  messageQueue: { package: '@threatlib/queue', factory: 'createMessageQueueIntegration' },
} as const satisfies Record<string, IntegrationPackage>;

/** A key of `integrations` that `client.start()` builds from its package. */
export type PackagedIntegrationKey = keyof typeof INTEGRATION_PACKAGES;

/** Whether `key` is one of {@link INTEGRATION_PACKAGES}. */
export function isPackagedIntegration(key: string): key is PackagedIntegrationKey {
  return Object.hasOwn(INTEGRATION_PACKAGES, key);
}

/** An integration built from an option of its own, outside `integrations`. */
export interface OptionIntegrationPackage extends IntegrationPackage {
  /** Where its options sit in the configuration; it is built when their `enabled` is true. */
  readonly option: string;
}

/**
 * The integrations `client.start()` builds from an option of their own when that option's `enabled` is true, with
 * the option as the factory's options (and as `context.optionsPath`): `enterprise.siemIntegration` makes
 * `@threatlib/siem`'s forwarder, which sends every alert to one endpoint as JSON, CEF or LEEF. They start after those
 * of {@link INTEGRATION_PACKAGES}.
 */
export const OPTION_INTEGRATION_PACKAGES = {
  siemForwarder: {
    package: '@threatlib/siem',
    factory: 'createSiemForwarderIntegration',
    option: 'enterprise.siemIntegration',
  },
} as const satisfies Record<string, OptionIntegrationPackage>;

/** A name under which `client.start()` builds an integration from an option of its own. */
export type OptionIntegrationKey = keyof typeof OPTION_INTEGRATION_PACKAGES;
