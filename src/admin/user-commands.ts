// `user create | rotate-key | set-profile | set | set-password | list`: every command returns one JSON-able object.

import { limits } from '../config.ts';
import type { Services } from '../service/services.ts';
import type { Plan, UserAdminError, UserRow } from '../service/users.ts';
import { boolFlag, str, UsageError, type ParsedArgs } from './args.ts';
import { type ApiProfile, API_PROFILES, parseApiProfile } from '../domain/api-profile.ts';

const MESSAGES: Record<UserAdminError['kind'], string> = {
  invalid_email: 'invalid email address',
  email_taken: 'a user with this email already exists',
  user_not_found: 'no user with this email',
  invalid_plan: 'plan must be pro or free',
};

function presentUser(u: UserRow) {
  return {
    userId: u.id,
    email: u.email,
    plan: u.plan,
    verified: u.verified,
    disabled: u.disabled,
    hasApiKey: u.hasApiKey,
    createdAt: new Date(u.createdMs).toISOString(),
  };
}

/** `--profile live|spec|default` (default: follow the server's API_PROFILE). */
function keyProfile(a: ParsedArgs): ApiProfile | null {
  const text = str(a, 'profile', true);
  if (text.trim().toLowerCase() === 'default') return null;
  const p = parseApiProfile(text);
  if (!p) throw new UsageError(`profile must be one of ${API_PROFILES.join(', ')} or default`);
  return p;
}

function plan(a: ParsedArgs): Plan | undefined {
  const p = str(a, 'plan');
  if (p !== undefined && p !== 'pro' && p !== 'free') throw new UsageError(MESSAGES.invalid_plan);
  return p;
}

export async function userCommand(s: Services, sub: string | undefined, a: ParsedArgs): Promise<object> {
  switch (sub) {
    case 'create': {
      const r = await s.users.create({
        email: str(a, 'email', true),
        plan: plan(a),
        verified: a.flags.has('unverified') ? false : true,
        disabled: a.flags.has('disabled') ? true : false,
        password: str(a, 'password'),
      });
      if (!r.ok) throw new UsageError(MESSAGES[r.error.kind]);
      return { userId: r.value.user.id, email: r.value.user.email, apiKey: r.value.apiKey };
    }
    case 'rotate-key': {
      const r = await s.users.rotateKey(str(a, 'email', true));
      if (!r.ok) throw new UsageError(MESSAGES[r.error.kind]);
      return { apiKey: r.value.apiKey };
    }
    case 'set-profile': {
      const r = await s.users.setKeyProfile(str(a, 'email', true), keyProfile(a));
      if (!r.ok) throw new UsageError(MESSAGES[r.error.kind]);
      return { email: r.value.email, profile: r.value.apiKeyProfile ?? null, effectiveProfile: r.value.apiKeyProfile ?? s.config.apiProfile };
    }
    case 'set': {
      const r = await s.users.set(str(a, 'email', true), {
        plan: plan(a),
        disabled: boolFlag(a, 'disabled'),
        verified: boolFlag(a, 'verified'),
      });
      if (!r.ok) throw new UsageError(MESSAGES[r.error.kind]);
      return presentUser(r.value);
    }
    case 'set-password': {
      // Prints the email only: never the password or its hash. Live web sessions of the user end.
      const r = await s.webAuth.setPassword(str(a, 'email', true), str(a, 'password', true));
      if (!r.ok) throw new UsageError(r.error.kind === 'invalid_password' ? `password must be 1 to ${limits.passwordLengthMax} characters` : MESSAGES.user_not_found);
      return { email: r.value.email };
    }
    case 'list':
      return { users: (await s.users.list()).map(presentUser) };
    default:
      throw new UsageError(`unknown user command ${JSON.stringify(sub ?? '')}; expected create, rotate-key, set-profile, set, set-password or list`);
  }
}
