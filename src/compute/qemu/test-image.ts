import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type CpioEntry, newcArchive } from './cpio.ts';
import { run } from './run.ts';
import { INITRAMFS_INIT, INITRAMFS_MODULES, ROOT_FILES } from './test-image-files.ts';

/** A bootable image as three files: the ext4 root disk and the kernel and initrd to boot it with. */
export type BootImage = { disk: string; kernel: string; initrd: string };

const SUITE = 'bookworm';
const ROOT_PACKAGES = ['busybox-static', 'dropbear-bin'];
const KERNEL_PACKAGES = ['linux-image-cloud-amd64'];
const DISK_SIZE = '64M';
/** Bump when the build steps change in a way the hashed inputs do not show. */
const RECIPE = 2;

function recipeHash(): string {
  const inputs = JSON.stringify([RECIPE, SUITE, ROOT_PACKAGES, KERNEL_PACKAGES, DISK_SIZE, INITRAMFS_INIT, ROOT_FILES]);
  return createHash('sha256').update(inputs).digest('hex').slice(0, 16);
}

function imageIn(dir: string): BootImage {
  return { disk: path.join(dir, 'disk.img'), kernel: path.join(dir, 'vmlinuz'), initrd: path.join(dir, 'initrd.img') };
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

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
  for (const file of ROOT_FILES) {
    const target = path.join(root, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.content);
    fs.chmodSync(target, file.mode);
  }
  for (const dir of ['usr/share/doc', 'usr/share/man', 'usr/share/locale', 'usr/lib/x86_64-linux-gnu/gconv'])
    fs.rmSync(path.join(root, dir), { recursive: true, force: true });
}

/**
 * The test image, built from Debian's packages under `cacheRoot` or found there from an earlier build
 * of the same recipe. Needs mmdebstrap and mke2fs, and root (mmdebstrap unpacks as root to keep owners).
 */
export async function buildTestImage(cacheRoot: string): Promise<BootImage> {
  const dir = path.join(cacheRoot, `cumulo-test-image-${recipeHash()}`);
  if (fs.existsSync(dir)) return imageIn(dir);
  fs.mkdirSync(cacheRoot, { recursive: true });
  const work = fs.mkdtempSync(path.join(cacheRoot, 'cumulo-test-image-build-'));
  try {
    const root = path.join(work, 'root');
    const kernelTree = path.join(work, 'kernel');
    await Promise.all([extract(ROOT_PACKAGES, root), extract([...KERNEL_PACKAGES, 'busybox-static'], kernelTree)]);
    layRootFiles(root);
    const out = path.join(work, 'out');
    fs.mkdirSync(out);
    const image = imageIn(out);
    await run('mke2fs', ['-q', '-t', 'ext4', '-L', 'root', '-d', root, image.disk, DISK_SIZE]);
    const vmlinuz = fs.readdirSync(path.join(kernelTree, 'boot')).find((name) => name.startsWith('vmlinuz-'));
    if (vmlinuz === undefined) throw new Error('the kernel package has no /boot/vmlinuz-*');
    fs.copyFileSync(path.join(kernelTree, 'boot', vmlinuz), image.kernel);
    fs.writeFileSync(image.initrd, initramfs(kernelTree));
    try {
      fs.renameSync(out, dir);
    } catch (error) {
      // Another process finished the same build first: its result is as good.
      if (!fs.existsSync(dir)) throw error;
    }
    return imageIn(dir);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
