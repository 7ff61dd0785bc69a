/** Runners, Dimensions, account settings (password, sessions), users and invites (admin). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { field, formatDate, formatMethod, livePoll, useDimensions, vesta } from './api';
import { DataTable, ErrorAlert, StateBadge, demoRunnerCommand } from './ui';
import { useAccount } from './shell';

export function RunnersPage() {
  const runners = useQuery({
    queryKey: ['runners'],
    queryFn: () => vesta.runners.list(),
    refetchInterval: livePoll(() => true),
  });
  return (
    <>
      <h1>Runners</h1>
      <p className="muted">
        Processes that generate clips for your Bench runs. Start one with <code>{demoRunnerCommand()}</code>.
      </p>
      <ErrorAlert error={runners.error} />
      <section className="card">
        <DataTable
          cards
          label="Runners"
          headers={['Name', 'Status', 'Last seen', 'Models']}
          rows={runners.data?.items.length}
          empty={
            <>
              No runners yet. A runner is a process with an API key that generates clips for your Bench runs;{' '}
              <code>{demoRunnerCommand()}</code> starts one for the demo model.
            </>
          }
        >
          {runners.data?.items.map((r) => (
            <tr key={r.id}>
              <td>{r.name}</td>
              <td>
                <StateBadge state={r.online ? 'online' : 'offline'} />
              </td>
              <td>{formatDate(r.lastSeenAt)}</td>
              <td>{r.models.join(', ')}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </>
  );
}

export function DimensionsPage() {
  const dims = useDimensions();
  return (
    <>
      <h1>Dimensions</h1>
      <p className="muted">
        VBench's 16 dimensions and the methods this server has for each. A greyed method needs the model
        weights it names, which this server does not have yet (see <Link to="/docs/models">Models</Link> for
        how to fetch them).
      </p>
      <ErrorAlert error={dims.error} />
      <section className="card">
        <DataTable
          className="text"
          cards
          label="Dimensions"
          headers={['Dimension', 'Group', 'Used now', 'Methods', 'Workflows']}
        >
          {dims.data?.items.map((d) => (
            <tr key={d.id}>
              <td data-label="">
                <strong>{d.name}</strong> <code>{d.id}</code>
                <br />
                <span className="muted">{d.description}</span>
              </td>
              <td data-label="Group">{d.category === 'quality' ? 'Quality' : 'Semantic'}</td>
              <td data-label="Used now">
                {d.defaultMethod ? (
                  <span className="tag">{d.defaultMethod}</span>
                ) : (
                  <span className="tag tag-off">none</span>
                )}
              </td>
              <td data-label="Methods">
                <ul className="methods">
                  {d.methods.map((m) => (
                    <li key={m.id} title={m.unavailableReason ?? m.description}>
                      {m.available ? (
                        <span className="method">{formatMethod(m.id, m.version)}</span>
                      ) : (
                        <span className="muted">
                          <span className="method">{formatMethod(m.id, m.version)}</span>{' '}
                          <span className="needs">
                            {m.requires.models.length > 0
                              ? `needs ${m.requires.models.join(', ')}`
                              : 'not in this build'}
                          </span>
                        </span>
                      )}
                    </li>
                  ))}
                </ul>
              </td>
              <td data-label="Workflows">
                {d.workflows.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(', ')}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
    </>
  );
}

/** A short name for a browser from its user agent ("Chrome 156 on Linux"); the whole string stays in a tooltip. */
export function browserName(ua: string | null): string {
  if (!ua) return 'Unknown browser';
  const browser =
    /(Edg|OPR|Firefox|HeadlessChrome|Chrome|Version)\/(\d+)/.exec(ua) ??
    /(curl|node|python[\w-]*)\/?([\d.]*)/i.exec(ua);
  const names: Record<string, string> = {
    Edg: 'Edge',
    OPR: 'Opera',
    HeadlessChrome: 'Headless Chrome',
    Version: 'Safari',
  };
  const what = browser ? `${names[browser[1]!] ?? browser[1]} ${browser[2]}`.trim() : ua.slice(0, 40);
  const os = /Windows|Mac OS X|Android|iPhone|iPad|Linux|CrOS/.exec(ua)?.[0];
  const osNames: Record<string, string> = { 'Mac OS X': 'macOS', CrOS: 'ChromeOS' };
  return os ? `${what} on ${osNames[os] ?? os}` : what;
}

export function AccountPage() {
  const qc = useQueryClient();
  const account = useAccount();
  const sessions = useQuery({ queryKey: ['sessions'], queryFn: () => vesta.account.sessions() });
  const [done, setDone] = useState(false);
  const change = useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) =>
      vesta.account.changePassword(body),
    onSuccess: async () => {
      setDone(true);
      await qc.invalidateQueries({ queryKey: ['sessions'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => vesta.account.revokeSession(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['sessions'] }),
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setDone(false);
    change.mutate({
      currentPassword: field(form, 'current'),
      newPassword: field(form, 'next'),
    });
    e.currentTarget.reset();
  };
  return (
    <>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{account.email}</strong> ({account.role})
      </p>
      <section className="card">
        <h2>Change password</h2>
        <form className="narrow" onSubmit={onSubmit}>
          <label>
            Current password
            <input name="current" type="password" autoComplete="current-password" required />
          </label>
          <label>
            New password (at least 10 characters)
            <input name="next" type="password" autoComplete="new-password" minLength={10} required />
          </label>
          <ErrorAlert error={change.error} />
          {done && <p role="status">Password changed; your other sessions are signed out.</p>}
          <button type="submit">Change password</button>
        </form>
      </section>
      <section className="card">
        <h2>Sessions</h2>
        <DataTable
          cards
          label="Signed-in sessions"
          headers={[
            'Browser',
            'IP',
            'Signed in',
            'Last seen',
            <span key="actions" className="sr-only">
              Actions
            </span>,
          ]}
        >
          {sessions.data?.items.map((s) => (
            <tr key={s.id}>
              <td title={s.userAgent ?? undefined}>{browserName(s.userAgent)}</td>
              <td>{s.ip ?? '—'}</td>
              <td>{formatDate(s.createdAt)}</td>
              <td>{formatDate(s.lastSeenAt)}</td>
              <td>
                {s.current ? (
                  <StateBadge state="online" label="this browser" />
                ) : (
                  <button type="button" className="secondary" onClick={() => revoke.mutate(s.id)}>
                    Sign out
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
    </>
  );
}

/** Users and invites for an admin; anyone else is told the page is for admins, with nothing to fill in. */
export function UsersPage() {
  const me = useAccount();
  if (me.role !== 'admin')
    return (
      <>
        <h1>Users</h1>
        <section className="card" data-testid="admins-only">
          <h2>For admins only</h2>
          <p>
            Only an admin of this Vesta server can see its users and invite new ones. You are signed in as{' '}
            <strong>{me.email}</strong>, who is not an admin.
          </p>
          <p className="muted">
            To add someone, ask an admin for an invite link. Your own settings are on{' '}
            <Link to="/account">Account</Link>.
          </p>
        </section>
      </>
    );
  return <AdminUsers />;
}

/** While an invite is open, the lists are read again every few seconds: an accepted invite shows up. */
const INVITE_POLL_MS = 4000;

function AdminUsers() {
  const qc = useQueryClient();
  const me = useAccount();
  const invites = useQuery({
    queryKey: ['invites'],
    queryFn: () => vesta.invites.list(),
    refetchInterval: (q) =>
      q.state.data?.items.some(
        (i) => !i.usedAt && !i.revokedAt && new Date(i.expiresAt).getTime() > Date.now(),
      )
        ? INVITE_POLL_MS
        : false,
  });
  const openInvites =
    invites.data?.items.some(
      (i) => !i.usedAt && !i.revokedAt && new Date(i.expiresAt).getTime() > Date.now(),
    ) ?? false;
  const users = useQuery({
    queryKey: ['users'],
    queryFn: () => vesta.users.list(),
    refetchInterval: openInvites ? INVITE_POLL_MS : false,
  });
  const [link, setLink] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: (email: string) => vesta.invites.create({ email }),
    onSuccess: async (res) => {
      setLink(res.url);
      await qc.invalidateQueries({ queryKey: ['invites'] });
    },
  });
  const disable = useMutation({
    mutationFn: (id: string) => vesta.users.disable(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['users'] }),
  });
  const revokeInvite = useMutation({
    mutationFn: (id: string) => vesta.invites.revoke(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['invites'] }),
  });
  const onInvite = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    invite.mutate(field(new FormData(e.currentTarget), 'email'));
    e.currentTarget.reset();
  };
  return (
    <>
      <h1>Users</h1>
      <section className="card">
        <h2>Invite a user</h2>
        <form className="row" onSubmit={onInvite}>
          <label>
            Email
            <input name="email" type="email" required />
          </label>
          <button type="submit">Create invite link</button>
        </form>
        <ErrorAlert error={invite.error} />
        {link && (
          <div className="secret" role="status">
            <p>
              <strong>Send this link to them; it works once and is shown only now.</strong>
            </p>
            <code data-testid="invite-link">{link}</code>
            <button type="button" onClick={() => void navigator.clipboard?.writeText(link)}>
              Copy
            </button>
          </div>
        )}
      </section>
      <section className="card">
        <h2>Users</h2>
        <ErrorAlert error={users.error ?? disable.error} />
        <DataTable cards label="Users" testId="users-table" headers={['User', 'Role', 'Created', 'Status']}>
          {users.data?.items.map((u) => (
            <tr key={u.id}>
              <td>
                {u.email ?? u.name}
                {u.email === null ? (
                  <span className="muted"> (API keys only, no sign-in)</span>
                ) : (
                  u.name !== u.email && <span className="muted"> ({u.name})</span>
                )}
              </td>
              <td>{u.role}</td>
              <td>{formatDate(u.createdAt)}</td>
              <td>
                {u.disabledAt ? (
                  <StateBadge state="cancelled" label={`disabled ${formatDate(u.disabledAt)}`} />
                ) : u.id === me.id ? (
                  <StateBadge state="online" label="active (you)" />
                ) : (
                  <span className="row-actions">
                    <StateBadge state="online" label="active" />
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        if (
                          window.confirm(
                            `Disable ${u.email ?? u.name}? Their sessions and API keys are revoked.`,
                          )
                        )
                          disable.mutate(u.id);
                      }}
                    >
                      Disable
                    </button>
                  </span>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
      <section className="card">
        <h2>Invites</h2>
        <DataTable
          cards
          label="Invites"
          headers={['Email', 'Created', 'Expires', 'State']}
          rows={invites.data?.items.length}
          empty="No invites yet."
        >
          {invites.data?.items.map((i) => (
            <tr key={i.id}>
              <td>{i.email}</td>
              <td>{formatDate(i.createdAt)}</td>
              <td>{formatDate(i.expiresAt)}</td>
              <td>
                {i.usedAt ? (
                  <StateBadge state="completed" label="accepted" />
                ) : i.revokedAt ? (
                  <StateBadge state="cancelled" label="revoked" />
                ) : new Date(i.expiresAt).getTime() < Date.now() ? (
                  <StateBadge state="cancelled" label="expired" />
                ) : (
                  <span className="row-actions">
                    <StateBadge state="queued" label="open" />
                    <button type="button" className="secondary" onClick={() => revokeInvite.mutate(i.id)}>
                      Revoke
                    </button>
                  </span>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
    </>
  );
}
