import { useEffect, useState } from 'react';
import { api, onSignedOut } from './api.ts';
import { finishSignIn, signOut, startSignIn, storedTokens } from './auth.ts';
import { useLoad } from './hooks.ts';
import { AccountPage } from './pages/account.tsx';
import { DomainDetail, DomainsList } from './pages/domains.tsx';
import { EventsPage } from './pages/events.tsx';
import { FirewallDetail, FirewallsList } from './pages/firewalls.tsx';
import { ImagesPage } from './pages/images.tsx';
import { ManagedPage } from './pages/managed.tsx';
import { NodeCreate, NodeDetail, NodesList } from './pages/nodes.tsx';
import { TagsPage } from './pages/tags.tsx';
import { currentPath, useRoute } from './router.ts';

const SECTIONS = [
  ['nodes', 'Nodes'],
  ['firewalls', 'Firewalls'],
  ['domains', 'Domains'],
  ['images', 'Images'],
  ['managed', 'Managed'],
  ['tags', 'Tags'],
  ['events', 'Events'],
  ['account', 'Account'],
] as const;

function Page({ route }: { route: string[] }) {
  const [section, id] = route;
  const numeric = Number(id);
  switch (section) {
    case 'nodes':
      if (id === 'create') return <NodeCreate />;
      return id ? <NodeDetail id={numeric} /> : <NodesList />;
    case 'firewalls':
      return id ? <FirewallDetail id={numeric} /> : <FirewallsList />;
    case 'domains':
      return id ? <DomainDetail id={numeric} /> : <DomainsList />;
    case 'images':
      return <ImagesPage />;
    case 'managed':
      return <ManagedPage />;
    case 'tags':
      return <TagsPage />;
    case 'events':
      return <EventsPage />;
    case 'account':
      return <AccountPage />;
    default:
      return <p>There is no such page. Pick one above.</p>;
  }
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const profile = useLoad(() => api.get<{ username: string }>('/profile'), []);
  const [menuOpen, setMenuOpen] = useState(false);
  const where = route.join('/');
  // A new page: the menu closes, the title names the page, and focus moves to the page's content
  // (a keyboard or screen reader user goes on from there, not from the link they followed).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs whenever the page changes
  useEffect(() => {
    setMenuOpen(false);
    const section = SECTIONS.find(([key]) => key === route[0]);
    document.title = `${section ? section[1] : 'Cumulo'} · Cumulo console`;
    document.getElementById('main')?.focus();
  }, [where]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <a className="brand" href="#/nodes">
          Cumulo
        </a>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="nav" className={menuOpen ? 'open' : ''} aria-label="Sections">
          {SECTIONS.map(([key, title]) => (
            <a key={key} href={`#/${key}`} aria-current={route[0] === key ? 'page' : undefined}>
              {title}
            </a>
          ))}
        </nav>
        <span className="who">
          {profile.data?.username}{' '}
          <button type="button" className="small" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
}

export function App() {
  const [state, setState] = useState<'checking' | 'signed-in' | 'signed-out'>('checking');
  const [problem, setProblem] = useState('');
  useEffect(() => {
    finishSignIn()
      .then((result) => {
        if (result && 'error' in result) setProblem(result.error);
        if (result && 'returnTo' in result) window.location.hash = result.returnTo;
        setState(storedTokens() ? 'signed-in' : 'signed-out');
      })
      .catch((err: Error) => {
        setProblem(err.message);
        setState('signed-out');
      });
    return onSignedOut(() => setState('signed-out'));
  }, []);
  if (state === 'checking') return <p className="muted">Signing in…</p>;
  if (state === 'signed-out') {
    return (
      <main className="signin">
        <h1>Cumulo console</h1>
        <p>See and drive this local cloud: nodes, firewalls, domains, images and more.</p>
        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
        <button type="button" onClick={() => void startSignIn(currentPath())}>
          Sign in
        </button>
      </main>
    );
  }
  return (
    <Shell
      onSignOut={() => {
        signOut();
        setState('signed-out');
      }}
    />
  );
}
