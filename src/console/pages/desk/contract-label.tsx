// A session's contract as a trader reads it: the front month on the replayed date (contract-name.ts),
// with the API's current name beside it when they differ. The desk's session bar and the journal
// show it alike.

import { replayedContractName } from './contract-name.ts';

interface Props {
  contract: { id: string; name: string };
  /** The replayed time the front month is read at (ISO 8601); null shows the API's name alone. */
  at: string | null;
}

export function ContractName({ contract, at }: Props) {
  const replayed = replayedContractName(contract.id, at);
  if (!replayed || replayed === contract.name) return <span class="sym" data-testid="contract-name">{contract.name}</span>;
  return (
    <>
      <span class="sym" data-testid="replayed-contract" title={`The front month on the replayed date; the API names today's front ${contract.name}`}>
        {replayed}
      </span>
      <span class="muted small api-name" data-testid="contract-name" title="The contract's name in the API (today's front month)">
        API {contract.name}
      </span>
    </>
  );
}
