/** The dashboard's entry: routes under /dashboard/, TanStack Query for data, the SDK as the client. */
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, Suspense, lazy } from 'react';
import { createRoot } from 'react-dom/client';
import { Link, Navigate, RouterProvider, createBrowserRouter } from 'react-router';
import { AccountPage, DimensionsPage, RunnersPage, UsersPage } from './admin';
import { queryClient } from './api';
import { InvitePage, SetupPage, SignInPage } from './auth';
import { BenchComparePage, BenchCreatePage, BenchListPage, BenchRunPage } from './bench';
import { JudgePage, JudgingCampaignPage, JudgingCreatePage, JudgingListPage } from './judging';
import { ApiKeysPage } from './keys';
import { RankPage, ScorePage } from './sessions';
import { Shell } from './shell';
import './styles.css';

// The docs renderer is loaded only when a docs page is opened.
const DocsPage = lazy(() => import('./docs').then((m) => ({ default: m.DocsPage })));
const docs = (
  <Suspense fallback={<p className="muted">Loading…</p>}>
    <DocsPage />
  </Suspense>
);

const router = createBrowserRouter(
  [
    { path: '/setup', element: <SetupPage /> },
    { path: '/sign-in', element: <SignInPage /> },
    { path: '/invite', element: <InvitePage /> },
    {
      path: '/',
      element: <Shell />,
      children: [
        { index: true, element: <Navigate to="/bench" replace /> },
        { path: 'bench', element: <BenchListPage /> },
        { path: 'bench/new', element: <BenchCreatePage /> },
        { path: 'bench/compare', element: <BenchComparePage /> },
        { path: 'bench/:id', element: <BenchRunPage /> },
        { path: 'judging', element: <JudgingListPage /> },
        { path: 'judging/new', element: <JudgingCreatePage /> },
        { path: 'judging/:id', element: <JudgingCampaignPage /> },
        { path: 'judging/:id/judge', element: <JudgePage /> },
        { path: 'score', element: <ScorePage /> },
        { path: 'rank', element: <RankPage /> },
        { path: 'runners', element: <RunnersPage /> },
        { path: 'dimensions', element: <DimensionsPage /> },
        { path: 'api-keys', element: <ApiKeysPage /> },
        { path: 'account', element: <AccountPage /> },
        { path: 'users', element: <UsersPage /> },
        { path: 'docs', element: docs },
        { path: 'docs/:name', element: docs },
        {
          path: '*',
          element: (
            <>
              <h1>Page not found</h1>
              <p className="muted">
                There is no dashboard page at this address. Go to <Link to="/bench">Bench runs</Link>.
              </p>
            </>
          ),
        },
      ],
    },
  ],
  { basename: '/dashboard' },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
