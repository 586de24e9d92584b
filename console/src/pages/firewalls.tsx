import { FirewallCreate } from './firewalls/create.tsx';
import { FirewallDetail } from './firewalls/detail.tsx';
import { FirewallsList } from './firewalls/list.tsx';
import './firewalls/firewalls.css';

/** The firewalls section: `#/firewalls`, `#/firewalls/create`, `#/firewalls/<id>`. */
export function FirewallsSection({ path }: { path: string[] }) {
  const [id] = path;
  if (id === 'create') return <FirewallCreate />;
  return id ? <FirewallDetail id={Number(id)} /> : <FirewallsList />;
}
