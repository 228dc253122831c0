// Stored passwords: argon2id at OWASP's recommended minimum unless PASSWORD_HASH_* say otherwise,
// and a hash made at any cost verifies (the suite's test cost, an older 64 MiB hash).

import { describe, expect, it } from 'bun:test';
import { loadConfig } from '../../src/config.ts';
import { hashPassword } from '../../src/lib/secrets.ts';

describe('password hashing cost', () => {
  it('defaults to argon2id with 19 MiB and 2 passes; PASSWORD_HASH_* override it', async () => {
    const prod = loadConfig({}).passwordHash;
    expect(prod).toEqual({ memoryKiB: 19_456, timeCost: 2 });
    expect(await hashPassword('pw', prod)).toStartWith('$argon2id$v=19$m=19456,t=2,p=1$');
    expect(loadConfig({ PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_TIME_COST: '1' }).passwordHash).toEqual({ memoryKiB: 1024, timeCost: 1 });
  });

  it('verifies hashes made at other costs, and only with the right password', async () => {
    for (const hash of [await hashPassword('pw', { memoryKiB: 1024, timeCost: 1 }), await Bun.password.hash('pw', 'argon2id')]) {
      expect(await Bun.password.verify('pw', hash)).toBe(true);
      expect(await Bun.password.verify('pw2', hash)).toBe(false);
    }
  });
});
