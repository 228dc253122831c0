// What the shell (../main.tsx) gives every page; apart from it so that pages do not import the shell.

import type { WebUser } from '../api.ts';

export interface PageProps {
  user: WebUser;
}
