import { type ComponentType, lazy, useEffect, useState } from 'react';
import { AccessProvider, useAccess } from './access.tsx';
import { onSignedOut } from './api.ts';
import { finishSignIn, signInToFinish, signOut, startSignIn } from './auth.ts';
import { DialogProvider } from './dialog.tsx';
import { arrived, forgetEvents } from './hooks.ts';
import { LazyPart } from './lazy-part.tsx';
import { NodesSection } from './pages/nodes.tsx';
import { currentPath, HOME, useRoute } from './router.ts';
import { ToastProvider } from './toast.tsx';
import { storedTokens } from './tokens.ts';

// The nodes section is home and comes with the first page; the others are loaded when first opened.
const FirewallsSection = lazy(() => import('./pages/firewalls.tsx').then((m) => ({ default: m.FirewallsSection })));
const DomainsSection = lazy(() => import('./pages/domains.tsx').then((m) => ({ default: m.DomainsSection })));
const ImagesSection = lazy(() => import('./pages/images.tsx').then((m) => ({ default: m.ImagesSection })));
const StackScriptsSection = lazy(() => import('./pages/stackscripts.tsx').then((m) => ({ default: m.StackScriptsSection })));
const ManagedSection = lazy(() => import('./pages/managed.tsx').then((m) => ({ default: m.ManagedSection })));
const TagsSection = lazy(() => import('./pages/tags.tsx').then((m) => ({ default: m.TagsSection })));
const EventsSection = lazy(() => import('./pages/events.tsx').then((m) => ({ default: m.EventsSection })));
const AccountSection = lazy(() => import('./pages/account.tsx').then((m) => ({ default: m.AccountSection })));

/** The sections of the menu, in its order: the address's first part, the title, and the page. */
const SECTIONS: [string, string, ComponentType<{ path: string[] }>][] = [
  ['nodes', 'Nodes', NodesSection],
  ['firewalls', 'Firewalls', FirewallsSection],
  ['domains', 'Domains', DomainsSection],
  ['images', 'Images', ImagesSection],
  ['stackscripts', 'StackScripts', StackScriptsSection],
  ['managed', 'Managed', ManagedSection],
  ['tags', 'Tags', TagsSection],
  ['events', 'Events', EventsSection],
  ['account', 'Account', AccountSection],
];

/** Each section reads the rest of the address itself (`#/nodes/12`: the nodes section gets `['12']`). */
function Page({ route }: { route: string[] }) {
  const [section, ...path] = route;
  const found = SECTIONS.find(([key]) => key === section);
  if (!found) return <p>There is no such page. Pick one above.</p>;
  const [, title, Section] = found;
  return (
    // Keyed by section: another section's page starts afresh, never from the one before while its code loads.
    <LazyPart key={section} what={`${title.toLowerCase()} page`}>
      <Section path={path} />
    </LazyPart>
  );
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const access = useAccess();
  const [menuOpen, setMenuOpen] = useState(false);
  const where = route.join('/');
  // A new page (the one it replaced is gone by now, its reads with it): the menu closes, a page left
  // after a delete reads again, the title names the page, and focus moves to the page's content
  // (a keyboard or screen reader user goes on from there, not from the link they followed).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs whenever the page changes
  useEffect(() => {
    setMenuOpen(false);
    arrived();
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
          {access.username}{' '}
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
  // Without a sign-in to finish (the usual load), the first render is already the signed-in console.
  const [state, setState] = useState<'checking' | 'signed-in' | 'signed-out'>(() =>
    signInToFinish() ? 'checking' : storedTokens() ? 'signed-in' : 'signed-out',
  );
  const [problem, setProblem] = useState('');
  useEffect(() => {
    if (!signInToFinish()) return onSignedOut(() => setState('signed-out'));
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
  if (state === 'checking') return <p className="muted">One moment…</p>;
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
  // The next user starts at home with nothing of this one's: tokens revoked, events forgotten.
  return (
    <ToastProvider>
      <DialogProvider>
        <AccessProvider>
          <Shell
            onSignOut={async () => {
              setState('checking');
              forgetEvents();
              window.location.hash = HOME;
              await signOut();
              setState('signed-out');
            }}
          />
        </AccessProvider>
      </DialogProvider>
    </ToastProvider>
  );
}
