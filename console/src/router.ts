import { useEffect, useState } from 'react';

/** The console's page is in the address's fragment (`#/nodes/12`): the server serves one page at /. */
/** The console's home: where a sign-in lands when it was not going anywhere else. */
export const HOME = '/nodes';

export function currentPath(): string {
  return window.location.hash.replace(/^#/, '') || HOME;
}

export function useRoute(): string[] {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

export function go(path: string): void {
  window.location.hash = path;
}
