/** The signed-in frame: checks the session (or sends to setup / sign-in), navigation, sign-out. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '@vesta/sdk';
import type { Account } from '@vesta/sdk';
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import { NavLink, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { vesta } from './api';
import { ErrorAlert } from './ui';

const AccountContext = createContext<Account | null>(null);

export function useAccount(): Account {
  const a = useContext(AccountContext);
  if (!a) throw new Error('useAccount outside the signed-in frame');
  return a;
}

/** Where a visitor without a session goes: setup on a fresh server, else sign-in. */
async function whoAmI(): Promise<{ account: Account } | { go: '/setup' | '/sign-in' }> {
  try {
    return { account: (await vesta.auth.session()).user };
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 401) throw e;
    const { setupRequired } = await vesta.auth.setupState();
    return { go: setupRequired ? '/setup' : '/sign-in' };
  }
}

export function Shell() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const me = useQuery({ queryKey: ['me'], queryFn: whoAmI, staleTime: 60_000 });
  // Set once this frame has shown a signed-in page: a later 401 means the session ended.
  const signedIn = useRef(false);
  // The navigation on a narrow screen: folded behind the Menu button, closed again on each page.
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  useEffect(() => setMenuOpen(false), [location.pathname]);
  if (me.error) return <ErrorAlert error={me.error} context="Cannot reach the Vesta server" />;
  if (!me.data) return <p className="muted">Loading…</p>;
  if ('go' in me.data) {
    const state =
      me.data.go === '/sign-in'
        ? { from: `${location.pathname}${location.search}`, ended: signedIn.current }
        : undefined;
    return <Navigate to={me.data.go} replace state={state} />;
  }
  signedIn.current = true;
  const account = me.data.account;
  const signOut = () => {
    void vesta.auth
      .signOut()
      .catch(() => undefined)
      .then(async () => {
        qc.clear();
        await navigate('/sign-in');
      });
  };
  const links: Array<[string, string]> = [
    ['/bench', 'Bench'],
    ['/score', 'Score'],
    ['/rank', 'Rank'],
    ['/judging', 'Judging'],
    ['/runners', 'Runners'],
    ['/dimensions', 'Dimensions'],
    ['/api-keys', 'API keys'],
    ['/account', 'Account'],
    ...(account.role === 'admin' ? ([['/users', 'Users']] as Array<[string, string]>) : []),
  ];
  return (
    <AccountContext.Provider value={account}>
      <div className="layout">
        <header className="top">
          <button
            ref={menuButton}
            type="button"
            className="menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpen((o) => !o)}
          >
            <span aria-hidden="true" className="menu-icon" />
            Menu
          </button>
          <span className="brand">Vesta</span>
          <span className="who" title={account.email}>
            {account.email}
          </span>
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        </header>
        <nav
          aria-label="Main"
          id="main-nav"
          className={menuOpen ? 'open' : undefined}
          onKeyDown={(e) => {
            // Escape folds the open menu and returns to its button.
            if (e.key !== 'Escape' || !menuOpen) return;
            setMenuOpen(false);
            menuButton.current?.focus();
          }}
        >
          <ul>
            {links.map(([to, label]) => (
              <li key={to}>
                <NavLink to={to}>{label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <main>
          <Outlet />
        </main>
      </div>
    </AccountContext.Provider>
  );
}
