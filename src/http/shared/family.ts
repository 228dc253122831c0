// An API family's Elysia instance: its prefix and the groups of routes it registers, in order.

import { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';

/** Registers one group of a family's routes (`registerOrder`, …). */
export type Registrar = <P extends string>(app: Elysia<P>, s: Services) => void;

/** The family under `prefix`, with `groups` registered in the order given. */
export function familyApp<const P extends string>(prefix: P, s: Services, groups: readonly Registrar[]) {
  const app = new Elysia({ prefix });
  for (const register of groups) register(app, s);
  return app;
}
