// GET templates: the strategy template catalog, public.

import { TEMPLATES } from '../../service/playground/templates.ts';
import { success } from '../shared/envelope.ts';
import type { App } from '../shared/route.ts';
import { presentTemplate } from './present.ts';

export function registerTemplates(app: App): void {
  // The catalog is static for the life of the process: build the answer once.
  const body = { templates: TEMPLATES.map(presentTemplate) };
  app.get('/templates', () => success(body));
}
