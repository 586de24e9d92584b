import type { Context } from '../context.ts';
import { formatHostPort, parseHostPort } from './host-port.ts';
import { Nameserver } from './nameserver.ts';
import type { ZoneSource } from './zone.ts';

export interface RunningNameserver {
  /** `ip:port`, UDP and TCP alike. */
  address: string;
  /** Whether it takes queries (false once closing). */
  listening(): boolean;
  /** Answers the queries in flight, then closes. */
  close(): Promise<void>;
}

/** The nameserver CUMULO_DNS_LISTEN asks for, listening and answering from `source`; null when it is off. */
export async function startConfiguredNameserver(ctx: Context, source: ZoneSource): Promise<RunningNameserver | null> {
  const listen = ctx.config.dnsListen;
  if (listen === undefined) return null;
  const at = parseHostPort(listen, 53, { allowPortZero: true });
  if (!at) throw new Error(`CUMULO_DNS_LISTEN is not ip:port: ${listen}`);
  const server = new Nameserver({ source, log: ctx.log });
  const bound = await server.listen(at.host, at.port);
  const address = formatHostPort({ host: bound.host, port: bound.udpPort });
  ctx.log.info({ address }, 'authoritative nameserver listening on UDP and TCP');
  return { address, listening: () => server.listening, close: () => server.close() };
}
