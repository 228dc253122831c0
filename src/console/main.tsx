// The console's shell: who is signed in, the navigation, and which page shows. Pages live in
// ./pages; each talks to the API through ./api.ts.

import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, auth, setUnauthorizedHandler, type WebUser } from './api.ts';
import { ChallengesPage } from './pages/challenges.tsx';
import { DeskPage } from './pages/desk.tsx';
import { JournalPage } from './pages/journal.tsx';
import { LoginPage } from './pages/login.tsx';
import { PlaygroundPage } from './pages/playground.tsx';
import { SettingsPage } from './pages/settings.tsx';
import './style.css';

const ROUTES = [
  { hash: '#/desk', label: 'Replay desk', page: DeskPage },
  { hash: '#/journal', label: 'Journal', page: JournalPage },
  { hash: '#/challenges', label: 'Challenges & payouts', page: ChallengesPage },
  { hash: '#/playground', label: 'Playground', page: PlaygroundPage },
  { hash: '#/settings', label: 'Settings', page: SettingsPage },
] as const;

function currentRoute() {
  const h = location.hash.split('?')[0];
  return ROUTES.find((r) => r.hash === h) ?? ROUTES[0];
}

function App() {
  const [user, setUser] = useState<WebUser | null | undefined>(undefined);
  const [route, setRoute] = useState(currentRoute());
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setUnauthorizedHandler(() => setUser(null));
    auth<{ user: WebUser }>('GET', 'me')
      .then((r) => setUser(r.user))
      .catch((e) => {
        setUser(null);
        if (!(e instanceof ApiError) || e.status !== 401) setError(e.message);
      });
    const onHash = () => setRoute(currentRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  if (user === undefined) return <div class="boot">Loading…</div>;
  if (user === null) return <LoginPage onLogin={setUser} initialError={error} />;

  const Page = route.page;
  const logout = async () => {
    try {
      await auth('POST', 'logout');
    } finally {
      setUser(null);
    }
  };
  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">ReplayDesk</span>
        <nav>
          {ROUTES.map((r) => (
            <a href={r.hash} class={r === route ? 'active' : ''} key={r.hash}>
              {r.label}
            </a>
          ))}
        </nav>
        <span class="who">
          <span data-testid="user-email">{user.email}</span> <span class={`plan plan-${user.plan}`}>{user.plan}</span>
          <a href="/api/sim/openapi" target="_blank" rel="noreferrer" class="docs-link">
            API reference
          </a>
          <button type="button" class="ghost" onClick={logout}>
            Log out
          </button>
        </span>
      </header>
      <main class="page">
        <Page user={user} />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
