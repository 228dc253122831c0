// Preloaded for every test file (bunfig.toml): the suite's servers, CLIs and apps hash passwords at
// a test cost (argon2id, 1 MiB, one pass: well under a millisecond, where the production cost takes
// 0.2 s of a busy core). Only the suite's time changes: hashes name their cost and verify at it, and
// test/lib/password-cost.test.ts checks the production default. A value set outside wins.

export const TEST_PASSWORD_COST = { memoryKiB: 1024, timeCost: 1 };

process.env.PASSWORD_HASH_MEMORY_KIB ??= String(TEST_PASSWORD_COST.memoryKiB);
process.env.PASSWORD_HASH_TIME_COST ??= String(TEST_PASSWORD_COST.timeCost);
