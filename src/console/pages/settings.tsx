// Settings: the plan, the password, display preferences (time zone, the start form's defaults),
// the simulator API key (Pro: generate or rotate, shown once) and its API profile
// (settings/api-key.tsx, settings/api-profile.tsx), and where bots connect.

import { useState } from 'preact/hooks';
import type { PageProps } from './page-props.ts';
import { ApiKeyCard, type Copier, useApiKey } from './settings/api-key.tsx';
import { useApiProfile } from './settings/api-profile.tsx';
import { DisplayPreferences } from './settings/display.tsx';
import { PasswordForm } from './settings/password.tsx';
import './settings.css';

export function SettingsPage({ user }: PageProps) {
  const apiKey = useApiKey();
  const profile = useApiProfile();
  const copier = useCopier();
  return (
    <div class="settings">
      <PlanCard user={user} />
      <PasswordForm />
      <DisplayPreferences />
      <ApiKeyCard plan={user.plan} apiKey={apiKey} profile={profile} copier={copier} />
      <ConnectionCard userName={apiKey.state?.userName ?? user.email} copier={copier} />
    </div>
  );
}

/** Copies a text; without clipboard permission (plain http on another host) selects it for Ctrl+C instead. */
function useCopier(): Copier {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(what);
    } catch {
      const el = document.querySelector<HTMLElement>(`[data-copy="${what}"]`);
      if (el) getSelection()?.selectAllChildren(el);
      setCopied(`${what}-select`);
    }
  };
  return { copied, copy };
}

function ConnectionCard({ userName, copier }: { userName: string; copier: Copier }) {
  const base = `${location.origin}/api/sim`;
  return (
    <section class="card">
      <h2>Connecting a bot</h2>
      <dl class="conn">
        <dt>API base URL</dt>
        <dd>
          <code data-testid="api-base" data-copy="base">
            {base}
          </code>{' '}
          <button type="button" class="small" onClick={() => copier.copy(base, 'base')}>
            {copier.copied === 'base' ? 'Copied' : 'Copy'}
          </button>
        </dd>
        <dt>User name</dt>
        <dd>
          <code>{userName}</code>
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
  -d '{"userName": "${userName}", "apiKey": "<API_KEY>"}'`}</pre>
    </section>
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
