import { useState } from 'preact/hooks';
import { ApiError, request, setToken } from '../api.js';

/** The sign-in form: the API's bearer token (`./dev start` prints it), checked against the server before it is kept. */
export function SignIn({ onSignIn }: { onSignIn: (token: string) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const candidate = value.trim();
    if (!candidate) {
      setError('Enter the API token.');
      return;
    }
    setBusy(true);
    setError(undefined);
    setToken(candidate);
    try {
      // Always the server's answer: a cached one would let any token in.
      await request('GET', 'feeds/status', undefined, { fresh: true });
      onSignIn(candidate);
    } catch (caught) {
      setToken(undefined);
      setError(
        caught instanceof ApiError && caught.status === 401
          ? 'The server refused this token.'
          : String((caught as Error).message),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>threatlib</h1>
      <form method="post" onSubmit={submit}>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          value={value}
          onInput={(event) => setValue((event.target as HTMLInputElement).value)}
          aria-describedby="token-help"
        />
        <p id="token-help" class="help">
          The bearer token <code>./dev start</code> printed (or <code>THREATLIB_API_TOKEN</code>). It stays in this tab
          only.
        </p>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
