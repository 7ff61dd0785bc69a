/** API keys: create (shown once, with a copy button), list, revoke with confirmation. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { field, formatDate, vesta } from './api';
import { DataTable, ErrorAlert } from './ui';

export function ApiKeysPage() {
  const qc = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => vesta.apiKeys.list() });
  const [created, setCreated] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: (body: { name: string; expiresInDays?: number }) => vesta.apiKeys.create(body),
    onSuccess: async (res) => {
      setCreated(res.key);
      setCopied(false);
      await qc.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => vesta.apiKeys.revoke(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const onCreate = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const days = field(form, 'days').trim();
    create.mutate({ name: field(form, 'name'), ...(days ? { expiresInDays: Number(days) } : {}) });
    e.currentTarget.reset();
  };
  return (
    <>
      <h1>API keys</h1>
      <p className="muted">
        Send a key as the <code>X-API-Key</code> header (or <code>export VESTA_API_KEY=…</code> for the CLI
        and SDK). Keys are made and revoked only here.
      </p>
      <section className="card">
        <h2>Create a key</h2>
        <form className="row" onSubmit={onCreate}>
          <label>
            Name
            <input name="name" required maxLength={100} placeholder="e.g. ci-pipeline" />
          </label>
          <label>
            Expires after (days, optional)
            <input name="days" type="number" min={1} max={3650} />
          </label>
          <button type="submit" disabled={create.isPending}>
            Create key
          </button>
        </form>
        <ErrorAlert error={create.error} />
        {created && (
          <div className="secret" role="status">
            <p>
              <strong>Copy this key now: it is shown only once.</strong>
            </p>
            <code data-testid="new-key">{created}</code>
            <button
              type="button"
              onClick={() => {
                void navigator.clipboard?.writeText(created).then(() => setCopied(true));
              }}
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
        )}
      </section>
      <section className="card">
        <h2>Your keys</h2>
        <ErrorAlert error={keys.error} />
        <DataTable
          cards
          label="Your API keys"
          headers={[
            'Name',
            'Prefix',
            'Created',
            'Last used',
            'Expires',
            <span key="actions" className="sr-only">
              Actions
            </span>,
          ]}
        >
          {keys.data?.items.map((k) => (
            <tr key={k.id}>
              <td>{k.name ?? '(made on the host)'}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>{formatDate(k.createdAt)}</td>
              <td>{formatDate(k.lastUsedAt)}</td>
              <td>{k.expired ? 'expired' : k.expiresAt ? formatDate(k.expiresAt) : 'never'}</td>
              <td>
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    if (
                      window.confirm(
                        `Revoke the key "${k.name ?? k.prefix}"? Anything using it stops working.`,
                      )
                    )
                      revoke.mutate(k.id);
                  }}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
          {keys.data?.items.length === 0 && (
            <tr>
              <td colSpan={6} className="muted" data-label="">
                No keys yet.
              </td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}
