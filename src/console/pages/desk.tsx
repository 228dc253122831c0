// Placeholder: replaced by the page's owner.
import type { PageProps } from '../main.tsx';

export function DeskPage(_: PageProps) {
  return <section class="card"><h2>Desk</h2><p class="muted">Coming soon.</p></section>;
}
