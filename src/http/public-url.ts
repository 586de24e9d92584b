import net from 'node:net';
import os from 'node:os';
import type { FastifyRequest } from 'fastify';

/** The port a server listens on: the one the system chose when configured with port 0, else the configured one. */
export function listeningPort(server: Pick<net.Server, 'address'>, configured: number): number {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : configured;
}

/** The address clients reach this server at: the configured public URL (CUMULO_PUBLIC_URL), else the request's own. */
export function publicBaseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}

export interface ListenSettings {
  readonly publicUrl?: string | undefined;
  readonly host: string;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1'];
const ALL_INTERFACES = new Set(['0.0.0.0', '::', '']);

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (net.isIPv4(host) && host.startsWith('127.'));
}

function origin(host: string, port: number): string {
  return new URL(`http://${net.isIPv6(host) ? `[${host}]` : host}:${port}`).origin;
}

/**
 * Every base URL this server's own pages may be at, by configuration alone and never by what a request
 * says (its Host header is the client's to choose): the public URL when set; else the listen
 * address, spelled each way a browser on the machine may reach it (127.0.0.1, localhost and [::1] on
 * loopback; each address of the machine's interfaces when listening on all of them).
 */
export function ownBaseUrls(settings: ListenSettings, port: number): string[] {
  if (settings.publicUrl) return [settings.publicUrl.replace(/\/+$/, '')];
  const host = settings.host.replace(/^\[|\]$/g, '');
  let hosts = [host];
  if (isLoopback(host)) hosts = [host, ...LOOPBACK_NAMES];
  else if (ALL_INTERFACES.has(host)) {
    const interfaces = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []);
    hosts = [...LOOPBACK_NAMES, ...interfaces.map((i) => i.address.replace(/%.*$/, ''))];
  }
  return [...new Set(hosts.map((h) => origin(h, port)))];
}
