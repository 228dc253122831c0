// GET templates: the strategy template catalog, public.

import type { Elysia } from 'elysia';
import type { Services } from '../../service/services.ts';
import { TEMPLATES } from '../../service/playground/templates.ts';
import { route } from '../shared/endpoint.ts';
import { presentTemplate } from './present.ts';
import * as ep from './schemas.ts';

export function registerTemplates<P extends string>(app: Elysia<P>, s: Services): void {
  // The catalog is static for the life of the process: present it once.
  const templates = TEMPLATES.map(presentTemplate);
  route(app, s, ep.templates, () => ep.templates.ok({ templates }));
}
