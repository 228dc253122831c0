// The simulator API key (Pro): generate or rotate (asked first; the old key and every token it
// issued are revoked), shown once, with the profile the new key takes; and the key's API profile
// (api-profile.tsx). The key never reaches the page except in the one answer that creates it.

import { useEffect, useState } from 'preact/hooks';
import type { Static } from '@sinclair/typebox';
import type { ApiKeyStatus } from '../../../http/web/shapes.ts';
import { auth } from '../../api.ts';
import { attempt, ErrorLine } from '../../ui.tsx';
import { ApiProfileSetting, type NewKeyChoice, NewKeyProfile, type ProfileModel } from './api-profile.tsx';

export type KeyState = Static<typeof ApiKeyStatus>;

export interface ApiKeyModel {
  state: KeyState | null;
  loadError: string | null;
  error: string | null;
  busy: boolean;
  newKey: string | null;
  /** Makes a new key (revoking the old one) with `profile`, or the old key's when undefined. */
  generate(profile: NewKeyChoice): Promise<boolean>;
}

export function useApiKey(): ApiKeyModel {
  const [state, setState] = useState<KeyState | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  useEffect(() => {
    attempt(setLoadError, async () => {
      const r = await auth<KeyState>('GET', 'api-key');
      setState({ hasApiKey: r.hasApiKey, userName: r.userName });
    });
  }, []);
  const generate = async (profile: NewKeyChoice) => {
    setBusy(true);
    const made = await attempt(setError, async () => {
      const r = await auth<{ userName: string; apiKey: string }>('POST', 'api-key', profile === undefined ? {} : { profile });
      setNewKey(r.apiKey);
      setState({ hasApiKey: true, userName: r.userName });
      return true;
    });
    setBusy(false);
    return made === true;
  };
  return { state, loadError, error, busy, newKey, generate };
}

export interface Copier {
  copied: string | null;
  copy(text: string, what: string): Promise<void>;
}

export function ApiKeyCard({ plan, apiKey: k, profile, copier }: { plan: string; apiKey: ApiKeyModel; profile: ProfileModel; copier: Copier }) {
  const [confirming, setConfirming] = useState(false);
  const [newProfile, setNewProfile] = useState<NewKeyChoice>(undefined);
  const { state, newKey, busy } = k;
  const rotating = state?.hasApiKey ?? false;
  const generate = async () => {
    if (!(await k.generate(newProfile))) return;
    setConfirming(false);
    setNewProfile(undefined);
    await profile.reload();
  };
  return (
    <section class="card" data-testid="api-key-card">
      <h2>Simulator API key</h2>
      {plan !== 'pro' ? (
        <p class="notice" data-testid="api-key-unavailable">
          API keys are a Pro-plan feature: this account is on the {plan} plan, so it cannot create a key and bots cannot sign in with it. Ask the administrator to
          move the account to Pro.
        </p>
      ) : (
        <>
          <p>
            Bots sign in with <span class="mono">Auth/loginKey</span> using your user name and this key, then send the token as{' '}
            <span class="mono">Authorization: Bearer …</span>.
          </p>
          <KeyStatus state={state} made={newKey !== null} />
          {newKey && <NewKey apiKey={newKey} copier={copier} />}
          <div class="key-actions">
            <NewKeyProfile info={profile.info} value={newProfile} onChange={setNewProfile} />
            {!confirming && (
              <button type="button" class={rotating ? '' : 'primary'} disabled={state === null || busy} onClick={() => (rotating ? setConfirming(true) : generate())} data-testid="generate-key">
                {rotating ? 'Rotate key…' : 'Generate key'}
              </button>
            )}
          </div>
          {confirming && <ConfirmRotate busy={busy} onYes={generate} onNo={() => setConfirming(false)} />}
          <ErrorLine error={k.error} />
          <ApiProfileSetting model={profile} />
        </>
      )}
      <ErrorLine error={k.loadError} />
    </section>
  );
}

function KeyStatus({ state, made }: { state: KeyState | null; made: boolean }) {
  return (
    <p class="muted" data-testid="api-key-status">
      {state === null
        ? 'Checking…'
        : made
          ? 'A new key was made: any previous key and the tokens it issued no longer work.'
          : state.hasApiKey
            ? 'A key exists for this account. It is stored hashed and cannot be shown again.'
            : 'No key yet.'}
    </p>
  );
}

function NewKey({ apiKey, copier }: { apiKey: string; copier: Copier }) {
  return (
    <div class="new-key" data-testid="new-key">
      <div class="key-row">
        <code data-testid="api-key" data-copy="key">
          {apiKey}
        </code>
        <button type="button" class="primary" onClick={() => copier.copy(apiKey, 'key')} data-testid="copy-key">
          {copier.copied === 'key' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p class="warn" role="status">
        Copy it now: this key is shown once and will not be shown again. Leaving or reloading this page hides it for good.
      </p>
      {copier.copied === 'key-select' && <p class="muted small">The browser refused the clipboard: the key is selected, press Ctrl+C.</p>}
    </div>
  );
}

function ConfirmRotate({ busy, onYes, onNo }: { busy: boolean; onYes: () => void; onNo: () => void }) {
  return (
    <div class="confirm" role="alertdialog" aria-label="Rotate the API key" data-testid="confirm-rotate">
      <p>
        <strong>Rotate the API key?</strong> The current key stops working at once, and every token it issued is revoked: running bots are signed out until they use
        the new key.
      </p>
      <div class="row">
        <button type="button" class="sell" disabled={busy} onClick={onYes} data-testid="confirm-rotate-yes">
          {busy ? 'Rotating…' : 'Rotate and revoke the old key'}
        </button>
        <button type="button" class="ghost" disabled={busy} onClick={onNo}>
          Cancel
        </button>
      </div>
    </div>
  );
}
