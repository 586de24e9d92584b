import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Accelerator = 'kvm' | 'tcg';
export type AcceleratorChoice = { accel: Accelerator; reason: string };

/**
 * Under a working KVM the probe prints within a few hundred milliseconds, QEMU's start included.
 * Where /dev/kvm is offered by a nested hypervisor that cannot run a Linux guest, SeaBIOS alone took
 * 2.6 s to reach the boot sector: a slower answer than this counts as no KVM.
 */
const PROBE_TIMEOUT_MS = 1_000;

/** What the probe prints on the first serial port. */
const PROBE_OUTPUT = 'K';

/**
 * A real-mode boot sector: `mov dx, 0x3f8; mov al, 'K'; out dx, al; cli; hlt; jmp $-1`, padded to
 * 512 bytes with the 0x55 0xAA signature that makes the BIOS boot it.
 */
export function probeBootSector(): Buffer {
  const sector = Buffer.alloc(512);
  Buffer.from([0xba, 0xf8, 0x03, 0xb0, PROBE_OUTPUT.charCodeAt(0), 0xee, 0xfa, 0xf4, 0xeb, 0xfd]).copy(sector);
  sector[510] = 0x55;
  sector[511] = 0xaa;
  return sector;
}

/** Whether the probe boot sector prints on the serial console under `accel` within `timeoutMs`. */
export async function probeBoots(accel: Accelerator, timeoutMs: number): Promise<{ booted: boolean; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-kvm-probe-'));
  try {
    const image = path.join(dir, 'boot.img');
    fs.writeFileSync(image, probeBootSector());
    const args = ['-accel', accel, '-nodefaults', '-no-user-config', '-display', 'none', '-m', '16'];
    args.push('-drive', `format=raw,file=${image}`, '-serial', 'stdio');
    const child = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const booted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const done = (result: boolean) => {
        clearTimeout(timer);
        resolve(result);
      };
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('latin1');
        if (output.includes(PROBE_OUTPUT)) done(true);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      child.on('error', (error) => {
        output += error.message;
        done(false);
      });
      child.on('exit', () => done(output.includes(PROBE_OUTPUT)));
    });
    child.kill('SIGKILL');
    return { booted, output: output.trim() };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** KVM when a guest really runs under it, else TCG: /dev/kvm can be there while a guest cannot run under it. */
export async function chooseAccelerator(): Promise<AcceleratorChoice> {
  try {
    fs.accessSync('/dev/kvm', fs.constants.R_OK | fs.constants.W_OK);
  } catch {
    return { accel: 'tcg', reason: '/dev/kvm is missing or not usable by this user' };
  }
  const probe = await probeBoots('kvm', PROBE_TIMEOUT_MS);
  if (probe.booted) return { accel: 'kvm', reason: 'a guest booted under KVM' };
  return { accel: 'tcg', reason: `no guest booted under KVM within ${PROBE_TIMEOUT_MS / 1000} s` };
}
