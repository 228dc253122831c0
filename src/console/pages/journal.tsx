// The journal: every ended replay session, newest first, with its statistics; open one for its
// trades, its balance curve, its chart with the trades marked (read-only) and the trader's notes.
// `#/journal?id=<accountId>` opens a session directly (the desk's ended list links there).

import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from './page-props.ts';
import { JournalDetailView } from './journal/detail.tsx';
import { JournalList } from './journal/list.tsx';
import './journal.css';

function openedId(): number | null {
  const q = location.hash.split('?')[1] ?? '';
  const id = Number(new URLSearchParams(q).get('id'));
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

export function JournalPage({ user }: PageProps) {
  const [id, setId] = useState<number | null>(openedId());
  useEffect(() => {
    const onHash = () => setId(openedId());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  if (user.plan !== 'pro') {
    return (
      <section class="card">
        <h2>Journal</h2>
        <p class="notice">The simulator is a Pro-plan feature; this account is on the {user.plan} plan.</p>
      </section>
    );
  }
  return id === null ? <JournalList /> : <JournalDetailView key={id} accountId={id} />;
}
