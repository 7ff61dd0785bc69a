/** Schemas of the dashboard's account, session, key, user and invite routes. */
import { Type } from 'typebox';
import type { Static } from 'typebox';

export const ACCOUNT_TAG = 'Dashboard accounts';
export const KEYS_TAG = 'API keys';

const Email = Type.String({ minLength: 3, maxLength: 254, description: 'Sign-in email (case-insensitive).' });
const Password = Type.String({ minLength: 1, maxLength: 1024, description: 'At least 10 characters.' });
const Role = Type.Union([Type.Literal('admin'), Type.Literal('user')], { description: '`admin` or `user`.' });

export const Account = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'User name (owner of runs and keys).' }),
  email: Type.String(),
  role: Role,
});

export const SignedIn = Type.Object(
  {
    user: Account,
    csrfToken: Type.String({
      description: 'Send it as `X-CSRF-Token` on every state-changing request made with the session cookie.',
    }),
    expiresAt: Type.String({
      format: 'date-time',
      description: 'When the session ends unless used (idle or absolute expiry).',
    }),
  },
  {
    description: 'A signed-in dashboard session; the `vesta_session` cookie is set (HttpOnly, SameSite=Lax).',
  },
);

export const SetupState = Type.Object({
  setupRequired: Type.Boolean({
    description: 'True while no account exists: POST /api/v1/auth/setup creates the first admin.',
  }),
});

export const SetupBody = Type.Object(
  { email: Email, password: Password, name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  { additionalProperties: false },
);
export type SetupBody = Static<typeof SetupBody>;

export const SignInBody = Type.Object(
  { email: Type.String({ maxLength: 254 }), password: Password },
  { additionalProperties: false },
);

export const AcceptInviteBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The token from the invite link.' }),
    password: Password,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const ChangePasswordBody = Type.Object(
  { currentPassword: Password, newPassword: Password },
  { additionalProperties: false },
);

export const IdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const WebSession = Type.Object({
  id: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  lastSeenAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  current: Type.Boolean({ description: 'The session making this request.' }),
});
export const WebSessionList = Type.Object({ items: Type.Array(WebSession) });

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()], {
    description: 'Null for keys made by `vesta admin create-key`.',
  }),
  prefix: Type.String({ description: 'The first 12 characters of the key.' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Last successful use, to within about a minute (written in batches).',
  }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expired: Type.Boolean(),
});
export const ApiKeyList = Type.Object({ items: Type.Array(ApiKey) });

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A label, such as where the key is used.',
    }),
    expiresInDays: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3650,
        description: 'Days until the key stops working; omit for no expiry.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CreatedApiKey = Type.Object({
  key: Type.String({ description: 'The whole key. Shown once: only a hash is stored.' }),
  apiKey: ApiKey,
});

export const User = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  role: Role,
  createdAt: Type.String({ format: 'date-time' }),
  disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const UserList = Type.Object({ items: Type.Array(User) });

export const Invite = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  usedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export const InviteList = Type.Object({ items: Type.Array(Invite) });

export const CreateInviteBody = Type.Object(
  { email: Email, role: Type.Optional(Role) },
  { additionalProperties: false },
);

export const CreatedInvite = Type.Object({
  invite: Invite,
  token: Type.String({ description: 'Single-use token; shown once (only a hash is stored).' }),
  url: Type.String({
    description:
      'The invite link to send: `<base>/dashboard/invite#token=…`, the base VESTA_PUBLIC_URL or, where that is unset, the origin this request was sent to (its Host must name this machine or be listed in VESTA_ALLOWED_HOSTS, else 400 `validation_failed` and no invite is made).',
  }),
});
