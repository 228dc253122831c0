// The start panel's tables of accounts (live, ended, challenge): one row an account, its name and
// balance, then a last column of its own; a row may carry one more under it (an ended session's
// statistics).

import { type ComponentChildren, Fragment } from 'preact';
import { money, THead } from '../../ui.tsx';
import type { Account } from './model.ts';

export function AccountsTable({ testid, accounts, last, cell, below }: {
  testid: string;
  accounts: readonly Account[];
  /** The last column's heading ('' for none) and its cell (a `td`) for an account. */
  last: string;
  cell: (a: Account) => ComponentChildren;
  below?: (a: Account) => ComponentChildren;
}) {
  return (
    <table data-testid={testid}>
      <THead columns={['Account', { num: 'Balance' }, last]} />
      <tbody>
        {accounts.map((a) => (
          <Fragment key={a.id}>
            <tr data-account-id={a.id}>
              <td class="mono">{a.name}</td>
              <td class="num">{money(a.balance)}</td>
              {cell(a)}
            </tr>
            {below?.(a)}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
