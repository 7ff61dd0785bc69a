/** First-run setup, sign-in and accepting an invite. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { field, vesta } from './api';
import { ErrorAlert } from './ui';

function AuthCard(props: { title: string; intro: string; children: React.ReactNode }) {
  return (
    <main className="auth">
      <div className="card auth-card">
        <p className="brand">Vesta</p>
        <h1>{props.title}</h1>
        <p className="muted">{props.intro}</p>
        {props.children}
      </div>
    </main>
  );
}

/** Where the signed-in frame sent the visitor from (a deep link, or the page whose session ended). */
interface SignInState {
  from?: string;
  ended?: boolean;
}

/**
 * @param landing where to go once `action` succeeded, when not back where the visitor came from
 *   (undefined: there, or the home page).
 */
function useSubmit(
  action: (form: FormData) => Promise<unknown>,
  landing?: () => Promise<string | undefined>,
) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const qc = useQueryClient();
  const navigate = useNavigate();
  const from = (useLocation().state as SignInState | null)?.from;
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    action(form)
      .then(async () => {
        // Forget what was read while signed out (the frame's "who am I" above all).
        qc.clear();
        const to = from?.startsWith('/') ? from : ((await landing?.().catch(() => undefined)) ?? '/');
        await navigate(to);
      })
      .catch((err: unknown) => setError(err))
      .finally(() => setBusy(false));
  };
  return { error, busy, onSubmit };
}

export function SetupPage() {
  const { error, busy, onSubmit } = useSubmit((form) =>
    vesta.auth.setup({ email: field(form, 'email'), password: field(form, 'password') }),
  );
  // Setup works once: afterwards this page says so and leads to sign-in, with no form to fail.
  const state = useQuery({ queryKey: ['setup-state'], queryFn: () => vesta.auth.setupState() });
  if (state.data && !state.data.setupRequired)
    return (
      <AuthCard
        title="Vesta is set up"
        intro="This server already has its first admin account, so there is nothing to set up here."
      >
        <p>
          <Link className="button" to="/sign-in">
            Go to sign-in
          </Link>
        </p>
        <p className="muted small">
          No account yet? Ask an admin of this server for an invite link. An operator on the host can also run{' '}
          <code>npx vesta admin create-user</code>.
        </p>
      </AuthCard>
    );
  if (state.isPending)
    return (
      <AuthCard title="Set up Vesta" intro="Checking whether this server is already set up…">
        <p className="muted">Loading…</p>
      </AuthCard>
    );
  return (
    <AuthCard
      title="Set up Vesta"
      intro="Create the first admin account. This page works once, on a fresh server."
    >
      <form onSubmit={onSubmit}>
        <label>
          Email
          <input name="email" type="email" autoComplete="email" required />
        </label>
        <label>
          Password (at least 10 characters)
          <input name="password" type="password" autoComplete="new-password" minLength={10} required />
        </label>
        <ErrorAlert error={error} />
        <button type="submit" disabled={busy}>
          Create admin account
        </button>
      </form>
    </AuthCard>
  );
}

export function SignInPage() {
  const { error, busy, onSubmit } = useSubmit((form) =>
    vesta.auth.signIn({ email: field(form, 'email'), password: field(form, 'password') }),
  );
  const ended = (useLocation().state as SignInState | null)?.ended === true;
  return (
    <AuthCard title="Sign in" intro="Sign in to manage API keys and use Score, Rank and Bench.">
      {ended && (
        <p role="status" className="notice">
          Your session has ended. Sign in again to carry on where you were.
        </p>
      )}
      <form onSubmit={onSubmit}>
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <ErrorAlert error={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p className="muted small">No account yet? Ask an admin of this Vesta server for an invite link.</p>
    </AuthCard>
  );
}

export function InvitePage() {
  // The token is in the fragment (#token=…), which browsers never send to the server.
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
  const { error, busy, onSubmit } = useSubmit(
    (form) => vesta.auth.acceptInvite({ token, password: field(form, 'password') }),
    judgingLanding,
  );
  return (
    <AuthCard title="Accept your invite" intro="Choose a password for your new Vesta account.">
      {token === '' ? (
        <ErrorAlert error="This invite link has no token: open the whole link you were sent." />
      ) : (
        <form onSubmit={onSubmit}>
          <label>
            Password (at least 10 characters)
            <input name="password" type="password" autoComplete="new-password" minLength={10} required />
          </label>
          <ErrorAlert error={error} />
          <button type="submit" disabled={busy}>
            Create account
          </button>
        </form>
      )}
      <p className="muted small">
        A link works once and expires after a few days; ask the admin who sent it for a new one if needed.
        Already have an account? <Link to="/sign-in">Sign in</Link>.
      </p>
    </AuthCard>
  );
}

/**
 * Where a new account lands: someone invited to judge a campaign (the usual reason for an invite
 * from a campaign's page) opens that campaign, not an empty Bench page; with several, the list.
 */
async function judgingLanding(): Promise<string | undefined> {
  const { items } = await vesta.judging.list();
  const judged = items.filter((c) => c.role === 'judge');
  if (judged.length === 1) return `/judging/${encodeURIComponent(judged[0]!.id)}`;
  return judged.length > 1 ? '/judging' : undefined;
}
