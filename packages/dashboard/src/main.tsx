// The dashboard: sign in with the API's bearer token, then Scan, Alerts, Feeds and Campaigns (hash routes, so a
// reload keeps the page and the server needs no route per page).

import { optionsFromUrl, registerServiceWorker, tellWorker } from '@threatlib/pwa';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setToken, token } from './api.js';
import { AlertsPage } from './pages/alerts.js';
import { CampaignsPage } from './pages/campaigns.js';
import { FeedsPage } from './pages/feeds.js';
import { ScanPage } from './pages/scan.js';
import { SignIn } from './pages/sign-in.js';
import { emitWorkerMessage, onWorkerMessage } from './pwa/worker-events.js';

const PAGES = [
  { id: 'scan', title: 'Scan' },
  { id: 'alerts', title: 'Alerts' },
  { id: 'feeds', title: 'Feeds' },
  { id: 'campaigns', title: 'Campaigns' },
] as const;
type PageId = (typeof PAGES)[number]['id'];

function pageOf(hash: string): PageId {
  const id = hash.replace(/^#\/?/, '');
  return PAGES.some((page) => page.id === id) ? (id as PageId) : 'scan';
}

function App() {
  const [signedIn, setSignedIn] = useState(token() !== undefined);
  const [page, setPage] = useState<PageId>(pageOf(location.hash));
  const [online, setOnline] = useState(navigator.onLine);
  const [waiting, setWaiting] = useState(0);

  useEffect(() => {
    const hash = () => setPage(pageOf(location.hash));
    const network = () => setOnline(navigator.onLine);
    window.addEventListener('hashchange', hash);
    window.addEventListener('online', network);
    window.addEventListener('offline', network);
    const stop = onWorkerMessage((message) => {
      if (message.type === 'queue') setWaiting(message.waiting);
    });
    return () => {
      window.removeEventListener('hashchange', hash);
      window.removeEventListener('online', network);
      window.removeEventListener('offline', network);
      stop();
    };
  }, []);

  useEffect(() => {
    document.title = `${PAGES.find((p) => p.id === page)?.title ?? 'Scan'} · threatlib`;
  }, [page]);

  if (!signedIn) {
    return (
      <SignIn
        onSignIn={(value) => {
          setToken(value);
          // The new token, and a replay: what waited for a valid token goes now.
          tellWorker({ type: 'replay', token: value });
          setSignedIn(true);
        }}
      />
    );
  }
  const signOut = () => {
    // Signing out forgets what was queued offline: never without saying so.
    if (
      waiting > 0 &&
      !window.confirm(`${waiting} action(s) made offline have not been sent yet; signing out drops them. Sign out?`)
    ) {
      return;
    }
    setToken(undefined);
    tellWorker({ type: 'forget' });
    setSignedIn(false);
  };
  return (
    <>
      {/* Moves the focus past the navigation without touching the hash (the pages' router). */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to the page
      </button>
      <header class="top">
        <span class="brand">threatlib</span>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map((p) => (
              <li key={p.id}>
                <a href={`#/${p.id}`} aria-current={p.id === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class={online ? 'net online' : 'net offline'} role="status" data-testid="network">
          {online ? 'Online' : 'Offline: showing stored data'}
          {waiting > 0 ? ` · ${waiting} waiting to be sent` : ''}
        </span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {/* Kept mounted: its table and a scan waiting to be sent stay while the analyst looks at other pages. */}
        <div hidden={page !== 'scan'}>
          <ScanPage online={online} />
        </div>
        {page === 'alerts' ? <AlertsPage online={online} /> : null}
        {page === 'feeds' ? <FeedsPage /> : null}
        {page === 'campaigns' ? <CampaignsPage /> : null}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) {
  root.replaceChildren();
  render(<App />, root);
  // When the first page was on screen, for the benchmark (bench/dashboard) and the browser's performance panel.
  performance.mark('threatlib:first-render');
}
// The server writes its `pwa` options in the page (`<meta name="threatlib-pwa" content="cacheStrategy=...">`).
// `enabled: false` registers no worker and removes one a previous visit registered, with what it kept.
const pwa = new URLSearchParams(document.querySelector<HTMLMetaElement>('meta[name="threatlib-pwa"]')?.content ?? '');
void registerServiceWorker(
  { ...optionsFromUrl(new URL(`?${pwa}`, location.href)), enabled: pwa.get('enabled') !== 'false' },
  { token, onMessage: emitWorkerMessage },
).catch(() => {
  // A browser without service workers (or a private window that refuses them) still has the live pages.
});
