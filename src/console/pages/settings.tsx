// Placeholder: replaced by the page's owner.
import type { PageProps } from '../main.tsx';

export function SettingsPage(_: PageProps) {
  return <section class="card"><h2>Settings</h2><p class="muted">Coming soon.</p></section>;
}
