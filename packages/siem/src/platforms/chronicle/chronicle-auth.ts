// Access tokens for the Chronicle API. A service account's token comes from google-auth-library's JWT client (it
// builds and signs the RS256 assertion of the JWT bearer grant and reads the answer); the library's HTTP goes
// through the connector instead of its own: one attempt, within the call's timeout and signal, over the connector's
// TLS options, to the key's token_uri (the library itself always posts to Google's endpoint), with Google's OAuth
// errors mapped to the connector's. The token is kept until shortly before it expires, by the connector's clock.
// - https://developers.google.com/identity/protocols/oauth2/service-account#httprest
// - https://github.com/googleapis/google-auth-library-nodejs (JWT, gtoken)
import type * as GoogleAuth from 'google-auth-library';
import type { gaxios } from 'google-auth-library';
import type { SiemHttp } from '../../connector/siem-http.js';
import type { PlatformCall, PlatformSettings } from '../platform.js';
import type { ChronicleCredential } from './chronicle-credentials.js';
import type { ChronicleOptions } from './chronicle-options.js';
import { retryAfterMs, snippet } from './google-answers.js';

/** Renew a token this long before it expires (google-auth-library's default eagerness). */
const EAGER_REFRESH_MS = 5 * 60_000;

/** Google's OAuth errors that mean the credentials themselves were refused. */
const REFUSED = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'invalid_scope', 'access_denied']);

interface Token {
  value: string;
  /**
   * When to get a new one, epoch ms by the connector's clock: five minutes before it expires, or half-way through a
   * shorter life.
   */
  renewAt: number;
}

/** What {@link ChronicleAuth.authorization} gives: the header, and whether the token was just obtained. */
export interface Authorization {
  header: string;
  /** True when the token came from the token endpoint in this call (a 401 with it is not worth a second try). */
  fresh: boolean;
}

/** The bearer token of every Chronicle API request: a given access token, or a service account's, renewed. */
export class ChronicleAuth {
  readonly #credential: ChronicleCredential;
  readonly #settings: PlatformSettings<ChronicleOptions>;
  readonly #google: GoogleAuthSdk | undefined;
  #token: Token | undefined;
  #pending: Promise<Token> | undefined;

  /** `google` is google-auth-library, loaded for a service account (a given access token needs none). */
  constructor(
    credential: ChronicleCredential,
    settings: PlatformSettings<ChronicleOptions>,
    google: GoogleAuthSdk | undefined,
  ) {
    this.#credential = credential;
    this.#settings = settings;
    this.#google = google;
  }

  /** Who the connector acts as, for messages after "the" (`service account svc@p.iam.gserviceaccount.com`). */
  get identity(): string {
    return this.#credential.kind === 'access-token'
      ? 'given access token'
      : `service account ${this.#credential.email}`;
  }

  /** Whether a refused token can be replaced (a service account's can; a given access token cannot). */
  get renewable(): boolean {
    return this.#credential.kind === 'service-account';
  }

  /** `Bearer <token>`, obtaining or renewing the service account's token when needed (within `call`). */
  async authorization(call: PlatformCall): Promise<Authorization> {
    const credential = this.#credential;
    if (credential.kind === 'access-token') return { header: `Bearer ${credential.token}`, fresh: false };
    const now = this.#settings.clock.now();
    const cached = this.#token;
    if (cached && now < cached.renewAt) {
      return { header: `Bearer ${cached.value}`, fresh: false };
    }
    // Calls made while a token is being obtained wait for the same one.
    this.#pending ??= this.#obtain(credential, call).finally(() => {
      this.#pending = undefined;
    });
    const token = await this.#pending;
    return { header: `Bearer ${token.value}`, fresh: true };
  }

  /** Forgets the token (the API refused it): the next call obtains a new one. */
  invalidate(): void {
    this.#token = undefined;
  }

  async #obtain(credential: Extract<ChronicleCredential, { kind: 'service-account' }>, call: PlatformCall) {
    const google = this.#google;
    // loadChronicleSdk loads google-auth-library whenever the credential is a service account.
    if (!google) throw new Error('google-auth-library is needed for a service account and was not loaded');
    const TokenTransport = tokenTransportClass(google);
    const transport = new TokenTransport(this.#settings.http, credential, call, () => this.#settings.clock.now());
    const client = new google.JWT({
      email: credential.email,
      key: credential.privateKey,
      ...(credential.keyId === undefined ? {} : { keyId: credential.keyId }),
      scopes: this.#settings.options.scopes,
      transporter: transport,
    });
    const { token } = await client.getAccessToken();
    if (!token) throw call.errors.request(`the token endpoint ${transport.origin} answered no access_token`);
    this.#settings.secrets.add(token);
    const lifetime = transport.expiresIn ?? 3600;
    const lifetimeMs = lifetime * 1000;
    const obtained = {
      value: token,
      renewAt: this.#settings.clock.now() + lifetimeMs - Math.min(EAGER_REFRESH_MS, lifetimeMs / 2),
    };
    this.#token = obtained;
    this.#settings.logger.debug(
      { platform: 'siem_e', account: credential.email, expiresInS: lifetime },
      'obtained an access token for the service account',
    );
    return obtained;
  }
}

/** google-auth-library, an optional peer dependency of `@threatlib/siem` that only `siem_e`'s service accounts use. */
export type GoogleAuthSdk = typeof GoogleAuth;

const transportClasses = new WeakMap<typeof gaxios.Gaxios, ReturnType<typeof tokenTransportOn>>();

/** The token transport class on the loaded library's `Gaxios`, made once per copy of the library. */
function tokenTransportClass(google: GoogleAuthSdk): ReturnType<typeof tokenTransportOn> {
  const base = google.gaxios.Gaxios;
  let made = transportClasses.get(base);
  if (!made) {
    made = tokenTransportOn(base);
    transportClasses.set(base, made);
  }
  return made;
}

/**
 * google-auth-library's transporter for the token request, bound to one call: it posts the form the library built
 * to the key's `token_uri` through the connector's HTTP, and turns Google's OAuth errors into the connector's. A
 * class on the library's `Gaxios`, which is loaded only when a service account needs a token.
 */
function tokenTransportOn(Gaxios: typeof gaxios.Gaxios) {
  return class TokenTransport extends Gaxios {
    readonly #http: SiemHttp;
    readonly #credential: Extract<ChronicleCredential, { kind: 'service-account' }>;
    readonly #call: PlatformCall;
    readonly #url: URL;
    readonly #now: () => number;
    /** `expires_in` of the last token answered, in seconds. */
    expiresIn: number | undefined;

    constructor(
      http: SiemHttp,
      credential: Extract<ChronicleCredential, { kind: 'service-account' }>,
      call: PlatformCall,
      now: () => number,
    ) {
      super();
      this.#http = http;
      this.#now = now;
      this.#credential = credential;
      this.#call = call;
      this.#url = new URL(credential.tokenUri);
    }

    get origin(): string {
      return this.#url.origin;
    }

    override async request<T>(options: gaxios.GaxiosOptions = {}): gaxios.GaxiosPromise<T> {
      const call = this.#call;
      const url = this.#url;
      const port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
      const response = await this.#http.request(call, {
        method: 'POST',
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port,
        path: `${url.pathname}${url.search}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: String(options.data ?? ''),
      });
      let data: Record<string, unknown> | undefined;
      try {
        const parsed: unknown = JSON.parse(response.body);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
          data = parsed as Record<string, unknown>;
      } catch {
        data = undefined;
      }
      if (response.statusCode === 200 && typeof data?.access_token === 'string') {
        this.expiresIn = typeof data.expires_in === 'number' && data.expires_in > 0 ? data.expires_in : undefined;
        const answer = new Response(response.body, { status: 200, headers: { 'content-type': 'application/json' } });
        return Object.assign(answer, { config: options as gaxios.GaxiosOptionsPrepared, data: data as T });
      }
      const error = typeof data?.error === 'string' ? data.error : undefined;
      const description = typeof data?.error_description === 'string' ? data.error_description : undefined;
      const where = `the token endpoint ${url.origin}`;
      if (error !== undefined && REFUSED.has(error) && response.statusCode < 500) {
        throw call.errors.authentication(
          `${where} refused service account ${this.#credential.email}: ${error}${description ? `: ${description}` : ''}`,
          { statusCode: response.statusCode, siemCode: error },
        );
      }
      const reason = error ? `${error}${description ? `: ${description}` : ''}` : snippet(response.body);
      if (response.statusCode === 200) {
        throw call.errors.request(`${where} answered without an access_token: ${reason}`, { statusCode: 200 });
      }
      const retryAfter = retryAfterMs(response.headers['retry-after'], this.#now());
      throw call.errors.fromStatus(response.statusCode, `${where}: ${reason}`, {
        forbiddenIsAuth: true,
        ...(error === undefined ? {} : { siemCode: error }),
        ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
      });
    }
  };
}
