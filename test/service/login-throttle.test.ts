// The login throttle alone: failures per email and address, per email and per address (each attempt
// counted from its start and withdrawn when its secret matches), successes per user, and the limiter
// pieces under it. The throttle's suite runs counted in memory and counted in the store (a cluster's),
// on both backends, with the same answers.
import { describe, expect, it } from 'bun:test';
import { limits } from '../../src/config.ts';
import { LoginThrottle } from '../../src/service/login-throttle.ts';
import { memoryRateLimits, type RateLimits, SlidingWindowLimiter, sharedRateLimits } from '../../src/service/rate-limit.ts';
import { eachBackend } from '../support/sql-backends.ts';

const T = 1_000_000;

describe('SlidingWindowLimiter release and clear', () => {
  it('release withdraws one call at its stamp; clear forgets the key', () => {
    const l = new SlidingWindowLimiter(2, 60_000);
    expect(l.take('k', T).allowed).toBe(true);
    expect(l.take('k', T + 5).allowed).toBe(true);
    expect(l.take('k', T + 6)).toEqual({ allowed: false, retryAfterS: 60 });
    l.release('k', T + 5);
    expect(l.take('k', T + 7).allowed).toBe(true);
    expect(l.take('k', T + 8).allowed).toBe(false);
    l.release('k', T + 123); // no such call: nothing changes
    expect(l.take('k', T + 9).allowed).toBe(false);
    l.clear('k');
    expect(l.take('k', T + 10).allowed).toBe(true);
    expect(l.take('k', T + 11).allowed).toBe(true);
    expect(l.take('k', T + 12).allowed).toBe(false);
  });

  it('release of an unknown key is harmless', () => {
    const l = new SlidingWindowLimiter(1, 60_000);
    l.release('nobody', T);
    expect(l.take('nobody', T).allowed).toBe(true);
  });
});

function throttleSuite(make: () => Promise<RateLimits>): void {
  const attempt = (address: string, email: string, startedMs: number) => ({ address, email, startedMs });

  it('admitted attempts count as failures of the email from that address until they succeed', async () => {
    const th = new LoginThrottle(await make(), 'api_login');
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) expect((await th.admitEmail(attempt('h', 'a@x', T + i))).allowed).toBe(true);
    expect(await th.admitEmail(attempt('h', 'a@x', T + 100))).toEqual({ allowed: false, retryAfterS: 60 });
    // Another email from the address, and the email from another address, go on.
    expect((await th.admitEmail(attempt('h', 'b@x', T + 100))).allowed).toBe(true);
    expect((await th.admitEmail(attempt('g', 'a@x', T + 100))).allowed).toBe(true);
  });

  it(`the email from anywhere: ${limits.loginFailuresPerEmailMax} failures, and a refusal there leaves no mark on the pair`, async () => {
    const th = new LoginThrottle(await make(), 'api_login');
    for (let i = 0; i < limits.loginFailuresPerEmailMax; i++) expect((await th.admitEmail(attempt(`10.0.0.${i}`, 'a@x', T + i))).allowed).toBe(true);
    expect(await th.admitEmail(attempt('fresh', 'a@x', T + 200))).toEqual({ allowed: false, retryAfterS: 60 });
    // The refused attempt did not count for `fresh`: once the window passes it has its full allowance.
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) expect((await th.admitEmail(attempt('fresh', 'a@x', T + 60_200 + i))).allowed).toBe(true);
    expect((await th.admitEmail(attempt('fresh', 'a@x', T + 60_300))).allowed).toBe(false);
  });

  it(`the address: ${limits.loginFailuresPerAddressMax} failures across emails (a flood), then refused`, async () => {
    const th = new LoginThrottle(await make(), 'api_login');
    for (let i = 0; i < limits.loginFailuresPerAddressMax; i++) expect((await th.admitAddress('h', T + i)).allowed).toBe(true);
    expect(await th.admitAddress('h', T + 1000)).toEqual({ allowed: false, retryAfterS: 59 });
    expect((await th.admitAddress('g', T + 1000)).allowed).toBe(true);
  });

  it('a success withdraws its own marks only, and forgets the email\'s failures from that address', async () => {
    const th = new LoginThrottle(await make(), 'api_login');
    for (let i = 0; i < limits.loginFailuresPerAddressMax - 1; i++) await th.admitAddress('1.2.3.4', T + i);
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax - 1; i++) await th.admitEmail(attempt('1.2.3.4', 'a@x', T + i));
    for (let i = 0; i < limits.loginFailuresPerEmailMax - limits.loginFailuresPerEmailAddressMax; i++) await th.admitEmail(attempt(`9.9.9.${i}`, 'a@x', T + i));
    // One more attempt from the address for a@x, which succeeds.
    expect((await th.admitAddress('1.2.3.4', T + 500)).allowed).toBe(true);
    expect((await th.admitEmail(attempt('1.2.3.4', 'a@x', T + 500))).allowed).toBe(true);
    expect((await th.succeeded(attempt('1.2.3.4', 'a@x', T + 500), 7, T + 510)).allowed).toBe(true);
    // The address still holds its earlier failures: one more, then the cap.
    expect((await th.admitAddress('1.2.3.4', T + 600)).allowed).toBe(true);
    expect((await th.admitAddress('1.2.3.4', T + 601)).allowed).toBe(false);
    // The email from anywhere keeps the others' failures: one more attempt, from anywhere, then the cap.
    expect((await th.admitEmail(attempt('5.5.5.5', 'a@x', T + 650))).allowed).toBe(true);
    expect((await th.admitEmail(attempt('5.5.5.6', 'a@x', T + 651))).allowed).toBe(false);
  });

  it('a success forgets the pair\'s failures: a full allowance from that address again', async () => {
    const th = new LoginThrottle(await make(), 'api_login');
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax - 1; i++) await th.admitEmail(attempt('h', 'a@x', T + i));
    await th.admitAddress('h', T + 500);
    await th.admitEmail(attempt('h', 'a@x', T + 500));
    await th.succeeded(attempt('h', 'a@x', T + 500), 7, T + 510);
    for (let i = 0; i < limits.loginFailuresPerEmailAddressMax; i++) expect((await th.admitEmail(attempt('h', 'a@x', T + 700 + i))).allowed).toBe(true);
    expect((await th.admitEmail(attempt('h', 'a@x', T + 800))).allowed).toBe(false);
  });

  it('a success under the email\'s lock (an API key) withdraws the address\'s mark only: the email\'s failures stay', async () => {
    const th = new LoginThrottle(await make(), 'api_login');
    // Two parallel attempts stamped alike: one counted for the email from anywhere, one refused there.
    for (let i = 0; i < limits.loginFailuresPerEmailMax - 1; i++) await th.admitEmail(attempt(`10.0.0.${i}`, 'a@x', T + i));
    await th.admitAddress('bot', T + 500);
    expect((await th.admitEmail(attempt('guess', 'a@x', T + 500))).allowed).toBe(true);
    await th.admitAddress('bot', T + 500);
    expect((await th.admitEmail(attempt('bot', 'a@x', T + 500))).allowed).toBe(false);
    expect((await th.succeeded(attempt('bot', 'a@x', T + 500), 7, T + 510, false)).allowed).toBe(true);
    // The guess's mark at the same stamp was not withdrawn: the email is still locked.
    expect((await th.admitEmail(attempt('fresh', 'a@x', T + 600))).allowed).toBe(false);
    // The bot's address holds one failure (the first attempt), not two.
    for (let i = 0; i < limits.loginFailuresPerAddressMax - 1; i++) expect((await th.admitAddress('bot', T + 700)).allowed).toBe(true);
    expect((await th.admitAddress('bot', T + 700)).allowed).toBe(false);
  });

  it(`successes: ${limits.loginSuccessesPerUserMax} per user per window, then Retry-After until the oldest leaves`, async () => {
    const th = new LoginThrottle(await make(), 'api_login');
    for (let i = 0; i < limits.loginSuccessesPerUserMax; i++) {
      await th.admitAddress('h', T + i * 100);
      expect((await th.succeeded(attempt('h', 'a@x', T + i * 100), 7, T + i * 100)).allowed).toBe(true);
    }
    await th.admitAddress('h', T + 20_000);
    expect(await th.succeeded(attempt('h', 'a@x', T + 20_000), 7, T + 20_000)).toEqual({ allowed: false, retryAfterS: 40 });
    // Another user, same host: unaffected; and the host's address holds no failures from all this.
    expect((await th.succeeded(attempt('h', 'b@x', T + 20_000), 8, T + 20_000)).allowed).toBe(true);
    for (let i = 0; i < limits.loginFailuresPerAddressMax; i++) expect((await th.admitAddress('h', T + 30_000)).allowed).toBe(true);
    expect((await th.admitAddress('h', T + 30_000)).allowed).toBe(false);
    expect((await th.succeeded(attempt('h', 'a@x', T + 60_000), 7, T + 60_000)).allowed).toBe(true);
  });
}

describe('LoginThrottle [memory]', () => throttleSuite(async () => memoryRateLimits()));

eachBackend('LoginThrottle shared through the store', (open) => throttleSuite(async () => sharedRateLimits(await open())));
