// Preloaded by test/http/postgres-store.test.ts into its child `bun test` (TEST_STORE=postgres):
// the apps' databases are emptied and reused between tests (test/support/pg-app-databases.ts).

import { reuseDatabasesBetweenTests } from './pg-app-databases.ts';

reuseDatabasesBetweenTests();
