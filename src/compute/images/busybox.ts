import fs from 'node:fs';
import path from 'node:path';
import { run } from '../qemu/run.ts';
import { filesUnder, layFiles, makeRootFilesystem, onlyFile, SUITE } from './build-steps.ts';
import { INITRAMFS_INIT, INITRAMFS_MODULES, ROOT_FILES } from './busybox-files.ts';
import { type CpioEntry, newcArchive } from './cpio.ts';
import type { BootImage, ImageRecipe } from './recipe.ts';

const ROOT_PACKAGES = ['busybox-static', 'dropbear-bin'];
const KERNEL_PACKAGES = ['linux-image-cloud-amd64'];
const DISK_SIZE_MB = 64;
/** Bump when the build steps change in a way the inputs do not show. */
const STEPS = 1;

/** Packages only unpacked (mmdebstrap's extract variant): no maintainer script runs, nothing is mounted. */
async function extract(packages: readonly string[], into: string): Promise<void> {
  await run('mmdebstrap', ['--quiet', '--variant=extract', `--include=${packages.join(',')}`, SUITE, into]);
}

function initramfs(kernelTree: string): Buffer {
  const modules = filesUnder(path.join(kernelTree, 'lib', 'modules'));
  const moduleEntries: CpioEntry[] = INITRAMFS_MODULES.map((name) => {
    const file = modules.find((m) => path.basename(m) === `${name}.ko`);
    if (file === undefined) throw new Error(`the kernel package has no module ${name}.ko`);
    return { path: `modules/${name}.ko`, type: 'file', data: fs.readFileSync(file) };
  });
  return newcArchive([
    ...['bin', 'dev', 'proc', 'newroot', 'modules'].map((dir): CpioEntry => ({ path: dir, type: 'dir' })),
    { path: 'bin/busybox', type: 'file', data: fs.readFileSync(path.join(kernelTree, 'bin', 'busybox')), mode: 0o755 },
    { path: 'init', type: 'file', data: Buffer.from(INITRAMFS_INIT), mode: 0o755 },
    ...moduleEntries,
  ]);
}

function layRootFiles(root: string): void {
  for (const dir of ['proc', 'sys', 'dev', 'run', 'tmp', 'sbin', 'root/.ssh'])
    fs.mkdirSync(path.join(root, dir), { recursive: true });
  fs.chmodSync(path.join(root, 'root'), 0o700);
  fs.chmodSync(path.join(root, 'root/.ssh'), 0o700);
  fs.rmSync(path.join(root, 'bin/sh'), { force: true });
  fs.symlinkSync('busybox', path.join(root, 'bin/sh'));
  fs.rmSync(path.join(root, 'sbin/init'), { force: true });
  fs.symlinkSync('../bin/busybox', path.join(root, 'sbin/init'));
  layFiles(root, ROOT_FILES);
  for (const dir of ['usr/share/doc', 'usr/share/man', 'usr/share/locale', 'usr/lib/x86_64-linux-gnu/gconv'])
    fs.rmSync(path.join(root, dir), { recursive: true, force: true });
}

async function build(work: string, image: BootImage): Promise<void> {
  const root = path.join(work, 'root');
  const kernelTree = path.join(work, 'kernel');
  await Promise.all([extract(ROOT_PACKAGES, root), extract([...KERNEL_PACKAGES, 'busybox-static'], kernelTree)]);
  layRootFiles(root);
  await makeRootFilesystem(root, image.disk, DISK_SIZE_MB);
  fs.copyFileSync(onlyFile(path.join(kernelTree, 'boot'), 'vmlinuz-'), image.kernel);
  fs.writeFileSync(image.initrd, initramfs(kernelTree));
}

/**
 * The small test image: busybox and dropbear on a 64 MB root, booted by a busybox initramfs that
 * loads the virtio modules itself. Up to SSH in seconds; the network comes from /etc/cumulo/network.
 */
export const busybox: ImageRecipe = {
  name: 'busybox',
  inputs: [STEPS, SUITE, ROOT_PACKAGES, KERNEL_PACKAGES, DISK_SIZE_MB, INITRAMFS_INIT, ROOT_FILES],
  build,
};
