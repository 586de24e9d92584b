import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { paletteColours } from './palette.ts';
import { adoptTerminalStyles } from './xterm-styles.ts';

/** The console's WebSocket, on this page's own host (the CSP lets the page connect only there). */
function consoleUrl(nodeId: number, ticket: string): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/v4/node/instances/${nodeId}/console/connect?ticket=${encodeURIComponent(ticket)}`;
}

export type ConsoleState = 'connecting' | 'open' | 'closed';

/**
 * The node's serial console in xterm.js (in its own light-on-black colours, in light mode too: what a
 * node prints is made for a dark terminal), over the WebSocket a ticket opens: what the node prints is
 * shown (its screen replayed first), what is typed goes to it.
 */
export default function ConsoleTerminal({
  nodeId,
  ticket,
  onState,
}: {
  nodeId: number;
  ticket: string;
  onState: (state: ConsoleState, reason?: string) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const said = useRef(onState);
  said.current = onState;
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const release = adoptTerminalStyles();
    const term = new Terminal({
      convertEol: false,
      cursorBlink: true,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      fontSize: 14,
      scrollback: 5000,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    fit.fit();
    // xterm draws only while it is in view: the opened console comes into view.
    element.scrollIntoView({ block: 'nearest' });
    const resized = new ResizeObserver(() => fit.fit());
    resized.observe(element);

    const socket = new WebSocket(consoleUrl(nodeId, ticket));
    socket.binaryType = 'arraybuffer';
    const decoder = new TextDecoder();
    const recolour = paletteColours();
    socket.onopen = () => {
      said.current('open');
      term.focus();
    };
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      const text = typeof event.data === 'string' ? event.data : decoder.decode(event.data, { stream: true });
      term.write(recolour(text));
    };
    socket.onclose = (event) => {
      const reason = event.reason || (event.code === 1000 ? 'The console closed' : `The connection ended (${event.code})`);
      term.write(`\r\n\x1b[2m[${reason}]\x1b[0m\r\n`);
      said.current('closed', reason);
    };
    const typed = term.onData((data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(data);
    });
    return () => {
      typed.dispose();
      socket.onclose = null;
      socket.close();
      resized.disconnect();
      term.dispose();
      release();
    };
  }, [nodeId, ticket]);
  return <div ref={box} className="terminal-box" />;
}
