// Random secrets and their hashes. API keys and token identifiers are high-entropy random values,
// so a single SHA-256 is a sufficient one-way hash (no salt or stretching needed, unlike passwords);
// passwords use Bun's argon2id via Bun.password.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** argon2id's cost: memory in KiB and passes (one lane). */
export interface PasswordCost {
  memoryKiB: number;
  timeCost: number;
}

/** A password's argon2id hash at `cost` (the hash names its cost: Bun.password.verify reads it back). */
export function hashPassword(password: string, cost: PasswordCost): Promise<string> {
  return Bun.password.hash(password, { algorithm: 'argon2id', memoryCost: cost.memoryKiB, timeCost: cost.timeCost });
}

/** A random secret of `bytes` bytes, base64url without padding (32 bytes = 256 bits). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Compares two equal-length hex digests in constant time. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  if (x.length !== y.length || x.length === 0) return false;
  return timingSafeEqual(x, y);
}
