// Ended replay sessions, newest first, each with its statistics on demand (the server keeps them:
// GET /api/auth/replay-results/:accountId), so a session's result is not lost when its panel closes.

import { AccountsTable } from './accounts-table.tsx';
import type { Account } from './model.ts';
import { useOpenResults } from './results-model.ts';
import { ResultsList } from './results-view.tsx';

export function EndedSessions({ accounts }: { accounts: Account[] }) {
  const open = useOpenResults();
  if (accounts.length === 0) return <p class="empty">No ended session yet.</p>;
  return (
    <AccountsTable
      testid="ended-sessions"
      accounts={[...accounts].reverse()}
      last=""
      cell={(a) => (
        <td class="actions">
          <button type="button" class="small ghost" onClick={() => open.toggle(a.id)} aria-expanded={open.openId === a.id}>
            {open.openId === a.id ? 'Hide' : 'Statistics'}
          </button>{' '}
          <a href={`#/journal?id=${a.id}`} class="small">
            Journal
          </a>
        </td>
      )}
      below={(a) =>
        open.openId === a.id && (
          <tr class="stats-row">
            <td colSpan={3}>
              <ResultsList results={open.results} error={open.error} />
            </td>
          </tr>
        )
      }
    />
  );
}
