import { type ChildProcess, spawn } from 'node:child_process';

export type Accelerator = 'kvm' | 'tcg';

/** What a QEMU machine is started from. The serial console is the process's stdout. */
export type MachineSpec = {
  accel: Accelerator;
  memoryMb: number;
  kernel: string;
  initrd?: string;
  append: string;
  /** Raw disk images, attached as virtio disks in order (vda, vdb, ...). */
  disks?: readonly string[];
  /** User networking with these guest TCP ports forwarded from 127.0.0.1; no interface when absent. */
  userNet?: { forwards: readonly { hostPort: number; guestPort: number }[] };
  qmpSocket?: string;
  /** Interfaces from a network backend: their QEMU arguments, and the command QEMU runs under (network-backend.ts). */
  network?: { qemuArgs: readonly string[]; launchPrefix: readonly string[] };
};

export function qemuArgs(spec: MachineSpec): string[] {
  const args = ['-accel', spec.accel, '-m', String(spec.memoryMb), '-nodefaults', '-no-user-config', '-display', 'none'];
  args.push('-serial', 'stdio', '-kernel', spec.kernel, '-append', spec.append);
  if (spec.initrd !== undefined) args.push('-initrd', spec.initrd);
  for (const disk of spec.disks ?? []) args.push('-drive', `file=${disk},if=virtio,format=raw`);
  if (spec.userNet !== undefined) {
    // restrict=on: the guest reaches nothing outside; only the forwards reach it.
    const forwards = spec.userNet.forwards.map((f) => `,hostfwd=tcp:127.0.0.1:${f.hostPort}-:${f.guestPort}`);
    args.push('-netdev', `user,id=n0,restrict=on${forwards.join('')}`, '-device', 'virtio-net-pci,netdev=n0');
  }
  if (spec.network !== undefined) args.push(...spec.network.qemuArgs);
  if (spec.qmpSocket !== undefined) args.push('-qmp', `unix:${spec.qmpSocket},server=on,wait=off`);
  return args;
}

/** A machine running as a child process, with what its serial console has printed so far. */
export type RunningMachine = {
  process: ChildProcess;
  console: () => string;
  /** Resolves true once the console shows `text`, false when the machine exits or `timeoutMs` passes first. */
  waitFor: (text: string, timeoutMs: number) => Promise<boolean>;
  exited: Promise<number | null>;
};

export function startMachine(spec: MachineSpec): RunningMachine {
  const [program = 'qemu-system-x86_64', ...args] = [
    ...(spec.network?.launchPrefix ?? []),
    'qemu-system-x86_64',
    ...qemuArgs(spec),
  ];
  const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.on('error', () => resolve(null));
  });
  const waitFor = (text: string, timeoutMs: number) =>
    new Promise<boolean>((resolve) => {
      const done = (found: boolean) => {
        listeners.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const check = () => {
        if (output.includes(text)) done(true);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      listeners.add(check);
      void exited.then(() => done(output.includes(text)));
      check();
    });
  return { process: child, console: () => output, waitFor, exited };
}
