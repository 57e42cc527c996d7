import { ConfigurationError } from '../errors/configuration-error.js';
import { IntegrationError } from '../errors/integration-error.js';
import type {
  Integration,
  IntegrationClass,
  IntegrationContext,
  IntegrationHealth,
} from '../integration/integration.js';
import type { IntegrationFactory } from '../integration/integration-factory.js';
import {
  INTEGRATION_PACKAGES,
  type IntegrationPackage,
  isPackagedIntegration,
  OPTION_INTEGRATION_PACKAGES,
  type OptionIntegrationKey,
  type PackagedIntegrationKey,
} from '../integration/integration-packages.js';
import { type IntegrationPackageLoader, isPackageNotFound } from '../integration/load-integration-package.js';
import type { Logger } from '../logging/logger.js';

/** One integration a client holds. */
export interface IntegrationEntry {
  readonly name: string;
  readonly instance: Integration;
  /**
   * `registered` by `registerIntegration` (kept across restarts), or `configured`: built by `start()` from
   * `integrations.<name>` and dropped by `stop()`, so the next `start()` builds it afresh.
   */
  readonly origin: 'registered' | 'configured';
  /** The options it was made with (its delivery policy reads `retries` and `timeout` from them). */
  readonly options: unknown;
  started: boolean;
}

/** What {@link ClientIntegrations} needs from its client. */
export interface ClientIntegrationsOptions {
  logger: Logger;
  /** The client's `integrations` configuration, read at each `start()`. */
  configured(): Readonly<Record<string, unknown>>;
  /** The context an integration named `name` receives. */
  contextFor(name: string): IntegrationContext;
  load: IntegrationPackageLoader;
}

const NAME = /^[a-z][a-z0-9_-]{0,63}$/i;

/**
 * The integrations of one client: those registered with `registerIntegration` and those `start()` builds from
 * configuration, started in order, stopped in reverse. `started()` is the list alert delivery sends to.
 */
export class ClientIntegrations {
  readonly #entries = new Map<string, IntegrationEntry>();
  readonly #options: ClientIntegrationsOptions;

  constructor(options: ClientIntegrationsOptions) {
    this.#options = options;
  }

  /**
   * Instantiates `integration` with its options and context and keeps it under `name`. The contract is checked on the
   * instance, so methods written as instance fields (`sendAlert = async (alert) => ...`) count.
   *
   * @throws {IntegrationError} when the name is invalid or taken, `integration` is not a class, its constructor throws,
   *   or the instance lacks `sendAlert` or `enrichIndicator`.
   */
  register(name: string, integration: IntegrationClass<never>, options: unknown): Integration {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new IntegrationError(
        String(name),
        'register',
        `Integration name ${JSON.stringify(name)} is invalid: use letters, digits, "-" or "_", starting with a letter`,
      );
    }
    if (this.#entries.has(name)) {
      throw new IntegrationError(name, 'register', `Integration "${name}" is already registered`);
    }
    if (typeof integration !== 'function') {
      throw new IntegrationError(name, 'register', `Integration "${name}" must be a class, got ${typeof integration}`);
    }
    let instance: unknown;
    try {
      instance = new integration(options as never, this.#options.contextFor(name));
    } catch (error) {
      throw new IntegrationError(name, 'register', `Integration "${name}" could not be created: ${messageOf(error)}`, {
        cause: error,
      });
    }
    const checked = checkContract(name, instance, 'register', `Integration "${name}"`);
    this.#entries.set(name, { name, instance: checked, origin: 'registered', options, started: false });
    return checked;
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  get(name: string): Integration | undefined {
    return this.#entries.get(name)?.instance;
  }

  /** Names in start order. */
  get names(): string[] {
    return [...this.#entries.keys()];
  }

  /** Every integration held, in start order. */
  entries(): IntegrationEntry[] {
    return [...this.#entries.values()];
  }

  /** The integrations started and not stopped since, in start order: where alerts are delivered. */
  started(): ReadonlyArray<{ name: string; instance: Integration; options: unknown }> {
    return this.entries()
      .filter((entry) => entry.started)
      .map(({ name, instance, options }) => ({ name, instance, options }));
  }

  /**
   * Builds every configured integration no registered one serves (those of `integrations`, and those of
   * {@link OPTION_INTEGRATION_PACKAGES} whose option is enabled), then starts all in order: registered ones in
   * registration order, then the built ones in {@link INTEGRATION_PACKAGES} order, then the option-built ones. If
   * one cannot be built, none is started; if one fails to start, those already started are stopped in reverse order.
   * Either way the built ones are dropped and the error says which integration failed and why.
   *
   * @returns the names started.
   * @throws {IntegrationError} `INTEGRATION_PACKAGE_MISSING` naming every package to install, or `INTEGRATION_FAILED`
   *   naming the integration that could not be loaded, built or started.
   * @throws {ConfigurationError} when a package refuses its options (`Configuration invalid: integrations.<key>...`).
   */
  async start(): Promise<string[]> {
    await this.#build();
    const started: IntegrationEntry[] = [];
    for (const entry of this.#entries.values()) {
      try {
        await entry.instance.start?.();
        entry.started = true;
        started.push(entry);
      } catch (error) {
        this.#options.logger.error(
          { category: 'integration', integration: entry.name, err: error },
          `integration "${entry.name}" failed to start`,
        );
        await this.#stopEntries(started.reverse());
        this.#dropConfigured();
        throw new IntegrationError(
          entry.name,
          'start',
          `Integration "${entry.name}" failed to start: ${messageOf(error)}`,
          { cause: error },
        );
      }
    }
    return started.map((entry) => entry.name);
  }

  /**
   * Stops every started integration in reverse order, each even if another failed, and drops the built ones.
   *
   * @returns the failures, in the order they happened.
   */
  async stop(): Promise<Array<{ name: string; error: unknown }>> {
    const failures = await this.#stopEntries(
      this.entries()
        .filter((entry) => entry.started)
        .reverse(),
    );
    this.#dropConfigured();
    return failures;
  }

  /** An integration's own health, or whether it is started when it has no `health()`. */
  async healthOf(entry: IntegrationEntry): Promise<IntegrationHealth> {
    return (
      (await entry.instance.health?.()) ?? { healthy: entry.started, detail: entry.started ? 'started' : 'not started' }
    );
  }

  async #build(): Promise<void> {
    const wanted: Array<{ key: BuiltKey; options: unknown }> = [];
    const unknown: string[] = [];
    for (const [key, options] of Object.entries(this.#options.configured())) {
      // A registered integration under the same name takes these options as its own (registerIntegration's default).
      if (options === undefined || this.#entries.has(key)) continue;
      if (isPackagedIntegration(key)) wanted.push({ key, options });
      else unknown.push(key);
    }
    if (unknown.length > 0) throw unregisteredError(unknown);
    for (const [key, spec] of Object.entries(OPTION_INTEGRATION_PACKAGES) as Array<[OptionIntegrationKey, Built]>) {
      if (this.#entries.has(key)) continue;
      const options = optionAt(this.#contextFor(key).client.config, spec.option as string);
      if ((options as { enabled?: unknown } | undefined)?.enabled === true) wanted.push({ key, options });
    }
    wanted.sort((a, b) => BUILD_ORDER.indexOf(a.key) - BUILD_ORDER.indexOf(b.key));
    const modules = await this.#loadPackages(wanted.map((w) => w.key));
    try {
      for (const { key, options } of wanted) {
        const instance = await this.#create(key, options, modules.get(BUILT[key].package));
        this.#entries.set(key, { name: key, instance, origin: 'configured', options, started: false });
        this.#options.logger.info(
          { category: 'integration', integration: key, package: BUILT[key].package },
          `integration "${key}" built from ${optionPath(key)}`,
        );
      }
    } catch (error) {
      this.#dropConfigured();
      throw error;
    }
  }

  /** Imports each package once; reports every missing one together, so one install fixes them all. */
  async #loadPackages(keys: readonly BuiltKey[]): Promise<Map<string, unknown>> {
    const packages = [...new Set(keys.map((key) => BUILT[key].package))];
    const outcomes = await Promise.allSettled(packages.map((name) => this.#options.load(name)));
    const modules = new Map<string, unknown>();
    const missing: string[] = [];
    const failed: Array<{ name: string; error: unknown }> = [];
    outcomes.forEach((outcome, i) => {
      const name = packages[i] as string;
      if (outcome.status === 'fulfilled') modules.set(name, outcome.value);
      else if (isPackageNotFound(outcome.reason, name)) missing.push(name);
      else failed.push({ name, error: outcome.reason });
    });
    if (missing.length > 0) {
      const needing = keys.filter((key) => missing.includes(BUILT[key].package));
      throw missingPackagesError(needing, missing);
    }
    const [first] = failed;
    if (first) {
      const key = keys.find((k) => BUILT[k].package === first.name) as string;
      throw new IntegrationError(
        key,
        'start',
        `Integration "${key}" could not be built: ${first.name} is installed but failed to load: ${messageOf(first.error)}`,
        { cause: first.error },
      );
    }
    return modules;
  }

  async #create(key: BuiltKey, options: unknown, module: unknown): Promise<Integration> {
    const { package: packageName, factory: exportName } = BUILT[key];
    const factory = (module as Record<string, unknown> | null | undefined)?.[exportName];
    if (typeof factory !== 'function') {
      throw new IntegrationError(
        key,
        'start',
        `Integration "${key}" could not be built: ${packageName} does not export ${exportName}(options, context), which ${optionPath(key)} needs; install a version of ${packageName} made for this @threatlib/core`,
      );
    }
    const context = this.#contextFor(key);
    let instance: unknown;
    try {
      instance = await (factory as IntegrationFactory)(options, context);
    } catch (error) {
      if (ConfigurationError.isInstance(error)) throw underPath(error, context.optionsPath);
      throw new IntegrationError(
        key,
        'start',
        `Integration "${key}" could not be built by ${packageName}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    return checkContract(key, instance, 'start', `Integration "${key}" built by ${packageName}.${exportName}`);
  }

  /** The context of `key`, whose `optionsPath` is its option's when it is built from one. */
  #contextFor(key: string): IntegrationContext {
    const context = this.#options.contextFor(key);
    const option = (BUILT as Record<string, Built | undefined>)[key]?.option;
    if (option === undefined) return context;
    // Copied with its accessors (the client's config and pool are read when used, not now).
    return Object.defineProperties(
      {},
      {
        ...Object.getOwnPropertyDescriptors(context),
        optionsPath: { value: option, enumerable: true },
      },
    ) as IntegrationContext;
  }

  #dropConfigured(): void {
    for (const [name, entry] of this.#entries) {
      if (entry.origin === 'configured') this.#entries.delete(name);
    }
  }

  async #stopEntries(entries: IntegrationEntry[]): Promise<Array<{ name: string; error: unknown }>> {
    const failures: Array<{ name: string; error: unknown }> = [];
    for (const entry of entries) {
      try {
        await entry.instance.stop?.();
      } catch (error) {
        failures.push({ name: entry.name, error });
        this.#options.logger.error(
          { category: 'integration', integration: entry.name, err: error },
          `integration "${entry.name}" failed to stop`,
        );
      } finally {
        entry.started = false;
      }
    }
    return failures;
  }
}

const ORDER = Object.keys(INTEGRATION_PACKAGES) as PackagedIntegrationKey[];

/** A name `start()` builds an integration under: a key of `integrations`, or one built from an option of its own. */
type BuiltKey = PackagedIntegrationKey | OptionIntegrationKey;
type Built = IntegrationPackage & { readonly option?: string };
const BUILT: Readonly<Record<BuiltKey, Built>> = { ...INTEGRATION_PACKAGES, ...OPTION_INTEGRATION_PACKAGES };
const BUILD_ORDER = Object.keys(BUILT) as BuiltKey[];

/** Where the options of `key` sit: `integrations.<key>`, or its own option (`enterprise.siemIntegration`). */
function optionPath(key: string): string {
  return (BUILT as Record<string, Built | undefined>)[key]?.option ?? `integrations.${key}`;
}

/** The value at a dotted `path` of `config`. */
function optionAt(config: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], config);
}

/** Checks an instance (not its class: methods may be instance fields) against the {@link Integration} contract. */
function checkContract(name: string, instance: unknown, phase: 'register' | 'start', what: string): Integration {
  if (typeof instance !== 'object' || instance === null) {
    throw new IntegrationError(
      name,
      phase,
      `${what} is not an integration: got ${instance === null ? 'null' : typeof instance}`,
    );
  }
  const value = instance as Record<string, unknown>;
  const missing = ['sendAlert', 'enrichIndicator'].filter((method) => typeof value[method] !== 'function');
  if (missing.length > 0) {
    throw new IntegrationError(
      name,
      phase,
      `${what} does not implement the Integration contract: missing ${missing.join(' and ')}`,
    );
  }
  if (value.specificationVersion !== undefined && value.specificationVersion !== 'v1') {
    throw new IntegrationError(
      name,
      phase,
      `${what} implements contract ${String(value.specificationVersion)}; this core supports v1`,
    );
  }
  return instance as Integration;
}

function missingPackagesError(keys: readonly string[], packages: readonly string[]): IntegrationError {
  const options = keys.map(optionPath).join(', ');
  const install = `npm install ${packages.join(' ')}`;
  const message =
    packages.length === 1
      ? `${options} ${keys.length === 1 ? 'is' : 'are'} configured but ${packages[0]} is not installed: ${install}`
      : `${options} are configured but ${packages.join(' and ')} are not installed: ${install}`;
  return new IntegrationError(keys.join(', '), 'start', message, {
    code: 'INTEGRATION_PACKAGE_MISSING',
    packages,
  });
}

function unregisteredError(keys: readonly string[]): IntegrationError {
  const list = keys.map((key) => `integrations.${key}`).join(', ');
  const known = ORDER.join(', ');
  const [first] = keys;
  return new IntegrationError(
    keys.join(', '),
    'start',
    `${list} ${keys.length === 1 ? 'is' : 'are'} configured but no integration is registered under ${keys.map((k) => `"${k}"`).join(', ')}, and threatlib builds only ${known} from configuration: call client.registerIntegration("${first}", YourIntegration) before start(), or remove the option`,
  );
}

/** The same error with every path under `prefix` (a package that did not prefix its paths still names the option). */
function underPath(error: ConfigurationError, prefix: string): ConfigurationError {
  const issues = error.issues.map((issue) => ({
    ...issue,
    path:
      issue.path === prefix || issue.path.startsWith(`${prefix}.`)
        ? issue.path
        : issue.path && issue.path !== '(root)'
          ? `${prefix}.${issue.path}`
          : prefix,
  }));
  return issues.every((issue, i) => issue.path === error.issues[i]?.path)
    ? error
    : new ConfigurationError(issues, { cause: error });
}

function messageOf(error: unknown): string {
  return (error as Error | undefined)?.message ?? String(error);
}
