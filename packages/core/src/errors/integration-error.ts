import { ThreatlibError } from './threatlib-error.js';

/** What an integration was doing when it failed. */
export type IntegrationPhase = 'register' | 'start' | 'stop';

/** Thrown when an integration cannot be registered, started or stopped; names the integration. */
export class IntegrationError extends ThreatlibError {
  /** The name the integration was registered under. */
  readonly integration: string;
  /** What the client was doing with it. */
  readonly phase: IntegrationPhase;

  constructor(integration: string, phase: IntegrationPhase, message: string, options: { cause?: unknown } = {}) {
    super('INTEGRATION_FAILED', message, options);
    this.name = 'IntegrationError';
    this.integration = integration;
    this.phase = phase;
  }

  /** Whether `error` is an {@link IntegrationError}, from any copy of the package. */
  static override isInstance(error: unknown): error is IntegrationError {
    return ThreatlibError.hasCode(error, 'INTEGRATION_FAILED');
  }
}
