// The Replay desk: start or resume a replay session, then trade it bar by bar or let the server play it (desk/session.tsx).

import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import type { PageProps } from './page-props.ts';
import { currentSessionId, describeSession, forgetMeta, type SessionMeta } from './desk/model.ts';
import { SessionView } from './desk/session.tsx';
import { StartPanel } from './desk/start.tsx';
import { type BranchNote, DeskSwitchContext } from './desk/branching.ts';
import './desk.css';

export function DeskPage({ user }: PageProps) {
  const [meta, setMeta] = useState<SessionMeta | null | undefined>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  // A branch made on the desk (Step back, Branch here) and the note that says so (desk/branching.ts).
  const [branchNote, setBranchNote] = useState<BranchNote | null>(null);
  const switchTo = (m: SessionMeta, note: BranchNote | null) => {
    setBranchNote(note);
    setMeta(m);
  };

  // Back to the session this browser was trading, if it is still live (as the server describes it).
  useEffect(() => {
    const id = currentSessionId();
    if (id === null || user.plan !== 'pro') return setMeta(null);
    describeSession(id)
      .then(setMeta)
      .catch((e) => {
        // The server answered that the session is over (or not the user's): forget it here too.
        if (e instanceof ApiError && e.status === 200) forgetMeta(id);
        setMeta(null);
      });
  }, []);

  if (user.plan !== 'pro') {
    return (
      <section class="card">
        <h2>Replay desk</h2>
        <p class="notice">The simulator is a Pro-plan feature; this account is on the {user.plan} plan.</p>
      </section>
    );
  }
  if (meta === undefined) return <p class="muted">Loading…</p>;
  if (meta === null) return <StartPanel onStarted={(m) => { setNotice(null); setMeta(m); }} notice={notice} />;
  return (
    <DeskSwitchContext.Provider value={{ to: switchTo, note: branchNote }}>
      <SessionView
        key={meta.accountId}
        meta={meta}
        onClose={(n) => {
          setNotice(n ?? null);
          setMeta(null);
        }}
      />
    </DeskSwitchContext.Provider>
  );
}
