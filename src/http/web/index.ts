// The web application's own endpoints (`/api/auth/`): the cookie login the Playground relies on.

import { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { registerWebAuth } from './auth.ts';

export function webAuthFamily(s: Services) {
  const app = new Elysia({ prefix: '/api/auth' });
  registerWebAuth(app, s);
  return app;
}
