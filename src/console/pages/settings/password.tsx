// Change the password: the current one, the new one twice. The server signs out every other web
// session of the account; this one stays (POST /api/auth/password).

import { useState } from 'preact/hooks';
import { auth } from '../../api.ts';
import { attempt, ErrorLine } from '../../ui.tsx';

export function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const mismatch = again !== '' && again !== next;
  const submit = async (e: Event) => {
    e.preventDefault();
    setDone(false);
    if (next !== again) return setError('The two new passwords differ');
    setBusy(true);
    const r = await attempt(setError, () => auth('POST', 'password', { currentPassword: current, newPassword: next }));
    setBusy(false);
    if (!r) return;
    setCurrent('');
    setNext('');
    setAgain('');
    setDone(true);
  };
  const field = (set: (v: string) => void) => (e: Event) => {
    set((e.target as HTMLInputElement).value);
    setDone(false);
  };
  return (
    <section class="card">
      <h2>Password</h2>
      <form class="password-form" onSubmit={submit} data-testid="password-form">
        <label>
          Current password
          <input type="password" name="currentPassword" autocomplete="current-password" value={current} onInput={field(setCurrent)} required />
        </label>
        <label>
          New password (8+ characters)
          <input type="password" name="newPassword" autocomplete="new-password" minLength={8} value={next} onInput={field(setNext)} required />
        </label>
        <label>
          New password again
          <input type="password" name="newPasswordAgain" autocomplete="new-password" value={again} onInput={field(setAgain)} required />
        </label>
        <button type="submit" class="primary" disabled={busy || mismatch || !current || !next}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </form>
      {mismatch && <p class="muted small">The two new passwords differ.</p>}
      <ErrorLine error={error} />
      {done && (
        <p class="notice" data-testid="password-changed">
          Password changed. Every other browser signed in to this account was signed out; this one stays signed in. Bots' API keys are unchanged.
        </p>
      )}
    </section>
  );
}
