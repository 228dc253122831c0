// The API key's profile (docs/gateway-profile.md): which answers the key's bots get, the spec's or
// the live gateway's. The profile in force, the key's choice (saved at once: every token of the key
// follows it from its next request), a line on whom each suits, and the base URLs that choose per
// bot whatever the key says. The choice for a key about to be generated is NewKeyProfile.

import { useEffect, useState } from 'preact/hooks';
import type { Static } from '@sinclair/typebox';
import type { ApiKeyProfile } from '../../../http/web/shapes.ts';
import { auth } from '../../api.ts';
import { attempt, ErrorLine } from '../../ui.tsx';

export type ProfileInfo = Static<typeof ApiKeyProfile>;
type Profile = ProfileInfo['effective'];
/** The key's choice: a profile, or null for the server's default. */
export type ProfileChoice = ProfileInfo['profile'];

const NAMES: Record<Profile, string> = { spec: 'Spec', live: 'Live gateway' };
const WHO: Record<Profile, string> = {
  spec: "bots written against this product's API (its reference, below).",
  live: 'bots using the public ProjectX gateway client libraries (the Python and TypeScript SDKs and their hub clients).',
};

/** The choices as a select's values: '' is the server's default. */
const choiceValue = (c: ProfileChoice) => c ?? '';
const valueChoice = (v: string): ProfileChoice => (v === 'spec' || v === 'live' ? v : null);

export interface ProfileModel {
  info: ProfileInfo | null;
  error: string | null;
  saved: boolean;
  choose(c: ProfileChoice): Promise<void>;
  /** Reads the profile again (a new key may have taken another). */
  reload(): Promise<void>;
}

export function useApiProfile(): ProfileModel {
  const [info, setInfo] = useState<ProfileInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const reload = async () => {
    await attempt(setError, async () => {
      const r = await auth<ProfileInfo>('GET', 'api-key/profile');
      setInfo({ profile: r.profile, serverDefault: r.serverDefault, effective: r.effective });
    });
  };
  useEffect(() => void reload(), []);
  const choose = async (profile: ProfileChoice) => {
    setSaved(false);
    await attempt(setError, async () => {
      const r = await auth<ProfileInfo>('PUT', 'api-key/profile', { profile });
      setInfo({ profile: r.profile, serverDefault: r.serverDefault, effective: r.effective });
      setSaved(true);
    });
  };
  return { info, error, saved, choose, reload };
}

/** The profile in force and the key's choice, saved as it changes. */
export function ApiProfileSetting({ model }: { model: ProfileModel }) {
  const { info } = model;
  const live = `${location.origin}/live/api/sim`;
  const spec = `${location.origin}/spec/api/sim`;
  return (
    <div class="api-profile" data-testid="api-profile">
      <h3>API profile</h3>
      <p>
        In force:{' '}
        <strong data-testid="api-profile-effective">{info ? NAMES[info.effective] : '…'}</strong>
        {info && <span class="muted">{info.profile === null ? ` (the server's default)` : ' (this key\u2019s choice)'}</span>}
        {model.saved && (
          <span class="saved" role="status" data-testid="api-profile-saved">
            {' '}
            Saved: the key's tokens answer under it from their next request.
          </span>
        )}
      </p>
      <label class="profile-choice">
        The key's profile
        <select name="apiProfile" value={info ? choiceValue(info.profile) : ''} disabled={info === null} onChange={(e) => model.choose(valueChoice((e.target as HTMLSelectElement).value))}>
          <ProfileOptions serverDefault={info?.serverDefault ?? null} />
        </select>
      </label>
      <ul class="profile-who">
        <li>
          <strong>Spec</strong>: {WHO.spec}
        </li>
        <li>
          <strong>Live gateway</strong>: {WHO.live}
        </li>
      </ul>
      <p class="muted small" data-testid="api-profile-urls">
        One bot may choose for itself, whatever the key says, by its base URL: <code>{live}</code> answers as the live gateway, <code>{spec}</code> as the spec.
      </p>
      <ErrorLine error={model.error} />
    </div>
  );
}

function ProfileOptions({ serverDefault }: { serverDefault: Profile | null }) {
  return (
    <>
      <option value="spec">{NAMES.spec}</option>
      <option value="live">{NAMES.live}</option>
      <option value="">Server default{serverDefault ? ` (${NAMES[serverDefault]})` : ''}</option>
    </>
  );
}

/** What a new key's profile will be: kept from the current key (undefined), or a choice. */
export type NewKeyChoice = ProfileChoice | undefined;

/** The profile offered when a key is generated: the current one kept, or another. */
export function NewKeyProfile({ info, value, onChange }: { info: ProfileInfo | null; value: NewKeyChoice; onChange: (c: NewKeyChoice) => void }) {
  const kept = info ? (info.profile === null ? `Server default (${NAMES[info.serverDefault]})` : NAMES[info.profile]) : '…';
  return (
    <label class="profile-choice">
      The new key's profile
      <select name="newKeyProfile" value={value === undefined ? 'keep' : choiceValue(value)} onChange={(e) => {
        const v = (e.target as HTMLSelectElement).value;
        onChange(v === 'keep' ? undefined : valueChoice(v));
      }}>
        <option value="keep">As now: {kept}</option>
        <ProfileOptions serverDefault={info?.serverDefault ?? null} />
      </select>
    </label>
  );
}
