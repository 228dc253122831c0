// Preloaded for every test file (bunfig.toml): turns the response contract on, so every response an
// endpoint served through `route` (src/http/shared/endpoint.ts) gives during the suite is checked
// against that endpoint's response schema for its HTTP status. A mismatch answers 500 and is
// recorded; the test that caused it then fails here with the endpoint, the path and the first
// schema error.

import { afterAll, afterEach } from 'bun:test';
import { enableResponseContract, responseContract } from '../../src/http/shared/response-contract.ts';

enableResponseContract();

function failOnViolations(): void {
  if (responseContract.violations.length === 0) return;
  const found = responseContract.violations.splice(0);
  throw new Error(`${found.length} response(s) broke the response contract:\n${found.join('\n')}`);
}

afterEach(failOnViolations);
afterAll(failOnViolations);
