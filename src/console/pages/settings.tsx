// Settings: the plan, the password, display preferences (time zone, the start form's defaults),
// the simulator API key (Pro: generate or rotate, shown once), and where bots connect. The key never reaches the page except in the one answer that creates it.

import { useEffect, useState } from 'preact/hooks';
import type { Static } from '@sinclair/typebox';
import type { ApiKeyStatus } from '../../http/web/shapes.ts';
import { auth } from '../api.ts';
import type { PageProps } from './page-props.ts';
import { attempt, ErrorLine } from '../ui.tsx';
import { DisplayPreferences } from './settings/display.tsx';
import { PasswordForm } from './settings/password.tsx';
import './settings.css';

type KeyState = Static<typeof ApiKeyStatus>;

export function SettingsPage({ user }: PageProps) {
  const pro = user.plan === 'pro';
  const [state, setState] = useState<KeyState | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const base = `${location.origin}/api/sim`;

  useEffect(() => {
    attempt(setLoadError, async () => {
      const r = await auth<KeyState>('GET', 'api-key');
      setState({ hasApiKey: r.hasApiKey, userName: r.userName });
    });
  }, []);

  const generate = async () => {
    setBusy(true);
    await attempt(setError, async () => {
      const r = await auth<{ userName: string; apiKey: string }>('POST', 'api-key');
      setNewKey(r.apiKey);
      setState({ hasApiKey: true, userName: r.userName });
      setConfirming(false);
    });
    setBusy(false);
  };

  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(what);
    } catch {
      // No clipboard permission (plain http on another host): select the text for Ctrl+C instead.
      const el = document.querySelector<HTMLElement>(`[data-copy="${what}"]`);
      if (el) getSelection()?.selectAllChildren(el);
      setCopied(`${what}-select`);
    }
  };

  const rotating = state?.hasApiKey ?? false;
  return (
    <div class="settings">
      <PlanCard user={user} />
      <PasswordForm />
      <DisplayPreferences />

      <section class="card" data-testid="api-key-card">
        <h2>Simulator API key</h2>
        {!pro && (
          <p class="notice" data-testid="api-key-unavailable">
            API keys are a Pro-plan feature: this account is on the {user.plan} plan, so it cannot create a key and bots cannot sign in with it. Ask the administrator
            to move the account to Pro.
          </p>
        )}
        {pro && (
          <>
            <p>
              Bots sign in with <span class="mono">Auth/loginKey</span> using your user name and this key, then send the token as{' '}
              <span class="mono">Authorization: Bearer …</span>.
            </p>
            <p class="muted" data-testid="api-key-status">
              {state === null
                ? 'Checking…'
                : newKey
                  ? 'A new key was made: any previous key and the tokens it issued no longer work.'
                  : state.hasApiKey
                    ? 'A key exists for this account. It is stored hashed and cannot be shown again.'
                    : 'No key yet.'}
            </p>
            {newKey && (
              <div class="new-key" data-testid="new-key">
                <div class="key-row">
                  <code data-testid="api-key" data-copy="key">
                    {newKey}
                  </code>
                  <button type="button" class="primary" onClick={() => copy(newKey, 'key')} data-testid="copy-key">
                    {copied === 'key' ? 'Copied' : 'Copy'}
                  </button>
                </div>
                <p class="warn" role="status">
                  Copy it now: this key is shown once and will not be shown again. Leaving or reloading this page hides it for good.
                </p>
                {copied === 'key-select' && <p class="muted small">The browser refused the clipboard: the key is selected, press Ctrl+C.</p>}
              </div>
            )}
            {!confirming ? (
              <button type="button" class={rotating ? '' : 'primary'} disabled={state === null || busy} onClick={() => (rotating ? setConfirming(true) : generate())} data-testid="generate-key">
                {rotating ? 'Rotate key…' : 'Generate key'}
              </button>
            ) : (
              <div class="confirm" role="alertdialog" aria-label="Rotate the API key" data-testid="confirm-rotate">
                <p>
                  <strong>Rotate the API key?</strong> The current key stops working at once, and every token it issued is revoked: running bots are signed out until
                  they use the new key.
                </p>
                <div class="row">
                  <button type="button" class="sell" disabled={busy} onClick={generate} data-testid="confirm-rotate-yes">
                    {busy ? 'Rotating…' : 'Rotate and revoke the old key'}
                  </button>
                  <button type="button" class="ghost" disabled={busy} onClick={() => setConfirming(false)}>
                    Cancel
                  </button>
                </div>
              </div>
            )}
            <ErrorLine error={error} />
          </>
        )}
        <ErrorLine error={loadError} />
      </section>

      <section class="card">
        <h2>Connecting a bot</h2>
        <dl class="conn">
          <dt>API base URL</dt>
          <dd>
            <code data-testid="api-base" data-copy="base">
              {base}
            </code>{' '}
            <button type="button" class="small" onClick={() => copy(base, 'base')}>
              {copied === 'base' ? 'Copied' : 'Copy'}
            </button>
          </dd>
          <dt>User name</dt>
          <dd>
            <code>{state?.userName ?? user.email}</code>
          </dd>
          <dt>Reference</dt>
          <dd>
            <a href="/api/sim/openapi" target="_blank" rel="noreferrer" data-testid="api-reference">
              API reference (OpenAPI)
            </a>
          </dd>
        </dl>
        <pre class="snippet">{`curl -s ${base}/Auth/loginKey \\
  -H 'Content-Type: application/json' \\
  -d '{"userName": "${state?.userName ?? user.email}", "apiKey": "<API_KEY>"}'`}</pre>
      </section>
    </div>
  );
}

function PlanCard({ user }: PageProps) {
  const pro = user.plan === 'pro';
  return (
    <section class="card">
      <h2>Plan</h2>
      <p>
        This account (<span class="mono">{user.email}</span>) is on the <span class={`plan plan-${user.plan}`} data-testid="settings-plan">{user.plan}</span> plan.
      </p>
      <p class="muted">
        {pro
          ? 'Pro includes the simulator API (replay, trading, history for bots), every futures instrument and the playground.'
          : 'The simulator API, the futures instruments and the playground need the Pro plan.'}
      </p>
    </section>
  );
}
