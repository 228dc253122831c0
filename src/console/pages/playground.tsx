// Placeholder: replaced by the page's owner.
import type { PageProps } from '../main.tsx';

export function PlaygroundPage(_: PageProps) {
  return <section class="card"><h2>Playground</h2><p class="muted">Coming soon.</p></section>;
}
