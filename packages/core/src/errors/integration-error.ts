import { ThreatlibError } from './threatlib-error.js';

/** What an integration was doing when it failed. */
export type IntegrationPhase = 'register' | 'start' | 'stop';

/**
 * The stable codes of an {@link IntegrationError}: `INTEGRATION_PACKAGE_MISSING` when a configured integration's
 * package is not installed (`packages` names what to install), `INTEGRATION_FAILED` for every other failure.
 */
export type IntegrationErrorCode = 'INTEGRATION_FAILED' | 'INTEGRATION_PACKAGE_MISSING';

/** Options of the {@link IntegrationError} constructor. */
export interface IntegrationErrorOptions {
  cause?: unknown;
  /** Default `INTEGRATION_FAILED`. */
  code?: IntegrationErrorCode;
  /** The packages to install, with `INTEGRATION_PACKAGE_MISSING`. */
  packages?: readonly string[];
}

/** Thrown when an integration cannot be registered, built, started or stopped; names the integration. */
export class IntegrationError extends ThreatlibError {
  declare readonly code: IntegrationErrorCode;
  /** The name the integration was registered under (several, comma-separated, when several failed). */
  readonly integration: string;
  /** What the client was doing with it. */
  readonly phase: IntegrationPhase;
  /** The packages to install (`['@threatlib/siem']`) when `code` is `INTEGRATION_PACKAGE_MISSING`; else empty. */
  readonly packages: readonly string[];

  constructor(integration: string, phase: IntegrationPhase, message: string, options: IntegrationErrorOptions = {}) {
    super(options.code ?? 'INTEGRATION_FAILED', message, options);
    this.name = 'IntegrationError';
    this.integration = integration;
    this.phase = phase;
    this.packages = options.packages ?? [];
  }

  /** Whether `error` is an {@link IntegrationError}, from any copy of the package. */
  static override isInstance(error: unknown): error is IntegrationError {
    return (
      ThreatlibError.hasCode(error, 'INTEGRATION_FAILED') ||
      ThreatlibError.hasCode(error, 'INTEGRATION_PACKAGE_MISSING')
    );
  }
}
