import { lazy, useState } from 'react';
import { useAccess } from '../../access.tsx';
import { ApiError, api } from '../../api.ts';
import { LazyPart } from '../../lazy-part.tsx';
import { useToast } from '../../toast.tsx';
import { errorText } from '../../ui.tsx';
import type { ConsoleState } from './terminal.tsx';
import type { NodeInfo } from './types.ts';

// xterm.js is loaded only when a console is opened.
const ConsoleTerminal = lazy(() => import('./terminal.tsx'));

const STATE_TEXT: Record<ConsoleState, string> = {
  connecting: 'Connecting…',
  open: 'Connected: what you type goes to the node.',
  closed: 'Disconnected.',
};

/** The node's serial console: a ticket, then the terminal; or why this node has none. */
export function ConsolePart({ node }: { node: NodeInfo }) {
  const canWrite = useAccess().canWrite('node', node.id);
  const say = useToast();
  const [ticket, setTicket] = useState<string | null>(null);
  const [none, setNone] = useState<string | null>(null);
  const [state, setState] = useState<{ at: ConsoleState; reason?: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const open = async () => {
    setBusy(true);
    setNone(null);
    try {
      const issued = await api.post<{ ticket: string }>(`/node/instances/${node.id}/console`);
      setState({ at: 'connecting' });
      setTicket(issued.ticket);
    } catch (err) {
      // 400: the node has no console (simulated nodes, a machine that does not run): the page says why.
      if (err instanceof ApiError && err.status === 400) setNone(err.message);
      else say(errorText(err), 'failed');
    } finally {
      setBusy(false);
    }
  };
  const close = () => {
    setTicket(null);
    setState(null);
    say('Console closed');
  };
  const changed = (at: ConsoleState, reason?: string) => {
    setState({ at, reason });
    if (at === 'open') say('Console connected');
  };
  return (
    <section aria-labelledby="console-title">
      <h2 id="console-title">Console</h2>
      {!canWrite ? (
        <p className="muted">Opening the serial console needs read-write access to this node.</p>
      ) : (
        <>
          <div className="actions">
            {ticket && state?.at !== 'closed' ? (
              <button type="button" onClick={close}>
                Close the console
              </button>
            ) : node.status === 'running' ? (
              <button type="button" onClick={() => void open()} disabled={busy}>
                {ticket ? 'Reconnect' : 'Open the console'}
              </button>
            ) : (
              <p className="muted">The console opens while the node runs; it is {node.status.replace(/_/g, ' ')}.</p>
            )}
          </div>
          {none && (
            <div className="notice" role="status">
              <p>
                <strong>This node has no console.</strong> {none}
              </p>
            </div>
          )}
          {state && (
            <p className="muted" role="status">
              {state.at === 'closed' && state.reason ? `${STATE_TEXT.closed} ${state.reason}.` : STATE_TEXT[state.at]}
            </p>
          )}
          {ticket && (
            <LazyPart what="terminal">
              <ConsoleTerminal key={ticket} nodeId={node.id} ticket={ticket} onState={changed} />
            </LazyPart>
          )}
        </>
      )}
    </section>
  );
}
