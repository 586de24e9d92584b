import fs from 'node:fs';
import path from 'node:path';
import { run } from '../qemu/run.ts';
import { layFiles, makeRootFilesystem, onlyFile, SUITE } from './build-steps.ts';
import { CUSTOMIZE, ROOT_FILES } from './debian12-files.ts';
import type { BootImage, ImageRecipe } from './recipe.ts';

const PACKAGES = [
  'linux-image-cloud-amd64',
  'initramfs-tools',
  'systemd-sysv',
  'udev',
  'dbus',
  'openssh-server',
  'ifupdown',
  'iproute2',
  'iputils-ping',
  'netbase',
  'procps',
  'e2fsprogs',
  'less',
  'ca-certificates',
];
/** Bump when the build steps change in a way the inputs do not show. */
const STEPS = 1;

/**
 * Installs Debian (minbase and PACKAGES, maintainer scripts run) into `root`, then lays the image's
 * files and runs CUSTOMIZE in it: mmdebstrap mounts what the chroot needs and unmounts it again.
 */
async function install(work: string, root: string): Promise<void> {
  const staging = path.join(work, 'files');
  layFiles(staging, ROOT_FILES);
  const script = path.join(work, 'customize.sh');
  fs.writeFileSync(script, CUSTOMIZE);
  await run('mmdebstrap', [
    '--quiet',
    '--mode=root',
    '--variant=minbase',
    `--include=${PACKAGES.join(',')}`,
    `--customize-hook=sync-in ${staging} /`,
    `--customize-hook=chroot "$1" /bin/sh -s <${script}`,
    SUITE,
    root,
  ]);
}

async function build(work: string, image: BootImage): Promise<void> {
  const root = path.join(work, 'root');
  await install(work, root);
  await makeRootFilesystem(root, image.disk);
  const boot = path.join(root, 'boot');
  fs.copyFileSync(onlyFile(boot, 'vmlinuz-'), image.kernel);
  fs.copyFileSync(onlyFile(boot, 'initrd.img-'), image.initrd);
}

/**
 * Debian 12 as a node runs it: systemd, OpenSSH (root may log in by key or password, host keys made
 * at first boot), ifupdown, Debian's cloud kernel with its initramfs-tools initrd (virtio_blk in it).
 * See guest.ts for what it expects from the host.
 */
export const debian12: ImageRecipe = {
  name: 'debian12',
  inputs: [STEPS, SUITE, PACKAGES, ROOT_FILES, CUSTOMIZE],
  build,
};
