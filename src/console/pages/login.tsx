// Sign in with email and password (the web login, `POST /api/auth/login`, sets the session cookie).

import { useState } from 'preact/hooks';
import { auth, type WebUser } from '../api.ts';
import { attempt, ErrorLine } from '../ui.tsx';

export function LoginPage({ onLogin, initialError }: { onLogin: (u: WebUser) => void; initialError?: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(initialError ?? null);
  const [busy, setBusy] = useState(false);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    const r = await attempt(setError, () => auth<{ user: WebUser }>('POST', 'login', { email, password }));
    setBusy(false);
    if (r) onLogin(r.user);
  };
  return (
    <div class="login">
      <form class="card login-card" onSubmit={submit}>
        <h1>ReplayDesk</h1>
        <p class="muted">Replay market history, trade it, and backtest strategies.</p>
        <label>
          Email
          <input name="email" type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} required />
        </label>
        <ErrorLine error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
