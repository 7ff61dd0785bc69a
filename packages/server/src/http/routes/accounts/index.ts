/**
 * Dashboard accounts, one file per operation: first-run setup, sign-in/out, the current session,
 * password and sessions, API keys, users and invites (what they share: `context.ts`).
 */
import type { RouteModule } from '../../app-deps.js';
import { getSetupStateRoute } from './get-setup-state.route.js';
import { setupFirstAdminRoute } from './setup-first-admin.route.js';
import { signInRoute } from './sign-in.route.js';
import { acceptInviteRoute } from './accept-invite.route.js';
import { getCurrentSessionRoute } from './get-current-session.route.js';
import { signOutRoute } from './sign-out.route.js';
import { changePasswordRoute } from './change-password.route.js';
import { listWebSessionsRoute } from './list-web-sessions.route.js';
import { revokeWebSessionRoute } from './revoke-web-session.route.js';
import { listApiKeysRoute } from './list-api-keys.route.js';
import { createApiKeyRoute } from './create-api-key.route.js';
import { revokeApiKeyRoute } from './revoke-api-key.route.js';
import { listUsersRoute } from './list-users.route.js';
import { disableUserRoute } from './disable-user.route.js';
import { listInvitesRoute } from './list-invites.route.js';
import { createInviteRoute } from './create-invite.route.js';
import { revokeInviteRoute } from './revoke-invite.route.js';

const ACCOUNT_ROUTES: readonly RouteModule[] = [
  getSetupStateRoute,
  setupFirstAdminRoute,
  signInRoute,
  acceptInviteRoute,
  getCurrentSessionRoute,
  signOutRoute,
  changePasswordRoute,
  listWebSessionsRoute,
  revokeWebSessionRoute,
  listApiKeysRoute,
  createApiKeyRoute,
  revokeApiKeyRoute,
  listUsersRoute,
  disableUserRoute,
  listInvitesRoute,
  createInviteRoute,
  revokeInviteRoute,
];

export const accountRoutes: RouteModule = (app, options) => {
  for (const route of ACCOUNT_ROUTES) route(app, options);
};
