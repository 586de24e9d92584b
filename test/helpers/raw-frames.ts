import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { systemTool } from './system-tools.ts';

const exec = promisify(execFile);

/**
 * Frames a guest could forge, sent on `eth0` of a network namespace standing in for a guest (an
 * AF_PACKET socket: Node has none, Python has). Only the fields the bridge's checks read are chosen;
 * the rest is what the kernel itself would send.
 */
export type Frame =
  /** A neighbour advertisement (solicited flag clear, override set) with a target link-layer option. */
  | { kind: 'na'; ethSrc: string; ethDst: string; src: string; dst: string; target: string; lladdr: string }
  /** A router advertisement of a /64 prefix for SLAAC, with a source link-layer option. */
  | { kind: 'ra'; ethSrc: string; src: string; prefix: string }
  | { kind: 'udp4'; ethSrc: string; ethDst: string; src: string; dst: string; sport: number; dport: number }
  | { kind: 'udp6'; ethSrc: string; ethDst: string; src: string; dst: string; sport: number; dport: number };

const SENDER = String.raw`
import json, socket, struct, sys

def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff

mac = lambda t: bytes.fromhex(t.replace(':', ''))
ip6 = lambda t: socket.inet_pton(socket.AF_INET6, t)
ip4 = lambda t: socket.inet_aton(t)

def ipv6(src, dst, nh, hops, body):
    return struct.pack('!IHBB', 0x60000000, len(body), nh, hops) + ip6(src) + ip6(dst) + body

def with_csum6(src, dst, nh, body, at):
    c = csum(ip6(src) + ip6(dst) + struct.pack('!I3xB', len(body), nh) + body)
    return body[:at] + struct.pack('!H', c or 0xffff) + body[at + 2:]

def frame(f):
    k = f['kind']
    if k == 'na':
        body = struct.pack('!BBHI', 136, 0, 0, 0x20000000) + ip6(f['target']) + bytes([2, 1]) + mac(f['lladdr'])
        return f['ethDst'], 0x86dd, ipv6(f['src'], f['dst'], 58, 255, with_csum6(f['src'], f['dst'], 58, body, 2))
    if k == 'ra':
        prefix = struct.pack('!BBBBIII', 3, 4, 64, 0xc0, 86400, 14400, 0) + ip6(f['prefix'])
        body = struct.pack('!BBHBBHII', 134, 0, 0, 64, 0, 1800, 0, 0) + bytes([1, 1]) + mac(f['ethSrc']) + prefix
        return '33:33:00:00:00:01', 0x86dd, ipv6(f['src'], 'ff02::1', 58, 255, with_csum6(f['src'], 'ff02::1', 58, body, 2))
    payload = b'forged'
    udp = struct.pack('!HHHH', f['sport'], f['dport'], 8 + len(payload), 0) + payload
    if k == 'udp6':
        return f['ethDst'], 0x86dd, ipv6(f['src'], f['dst'], 17, 64, with_csum6(f['src'], f['dst'], 17, udp, 6))
    header = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, ip4(f['src']), ip4(f['dst']))
    return f['ethDst'], 0x0800, header[:10] + struct.pack('!H', csum(header)) + header[12:] + udp

s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('eth0', 0))
for f in json.loads(sys.argv[1]):
    dst, ethertype, payload = frame(f)
    for _ in range(3):
        s.send(mac(dst) + mac(f['ethSrc']) + struct.pack('!H', ethertype) + payload)
`;

/** Sends each frame (three times) from `eth0` of namespace `netns`. */
export async function sendFrames(netns: string, frames: readonly Frame[]): Promise<void> {
  await exec(systemTool('ip'), ['netns', 'exec', netns, systemTool('python3'), '-c', SENDER, JSON.stringify(frames)]);
}

const LISTENER = `
import socket, sys
family = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET
s = socket.socket(family, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
print('ready', flush=True)
data, peer = s.recvfrom(100)
print('received', data.decode(), flush=True)
`;

/** A UDP listener in a namespace, on until it hears a datagram or is asked. */
export interface UdpListener {
  /**
   * What it heard, `received <payload>`, or `nothing` if it has heard nothing within `graceMs` of
   * the call (ask once the frames are sent: the grace is for their delivery, however loaded the host).
   */
  heard(graceMs?: number): Promise<string>;
}

/** Listens for one UDP datagram at address:port in namespace `netns`; resolves once it listens. */
export async function listenUdp(netns: string, address: string, port: number): Promise<UdpListener> {
  const args = ['netns', 'exec', netns, systemTool('python3'), '-c', LISTENER, address, String(port)];
  const child = execFile(systemTool('ip'), args);
  let out = '';
  const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith('ready\n')) resolve();
    });
    child.on('close', () => reject(new Error(`the listener ended before it listened: ${out}`)));
  });
  return {
    async heard(graceMs = 3000) {
      const timer = setTimeout(() => child.kill(), graceMs);
      await ended;
      clearTimeout(timer);
      const received = /^received .*$/m.exec(out)?.[0];
      return received ?? 'nothing';
    },
  };
}
