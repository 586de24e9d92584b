/**
 * What the qemu driver and the images it boots agree on: the files written into a disk at deploy
 * and what the guest prints once it is up. The test image follows it (test-image-files.ts), and so
 * does the Debian image.
 */

/** Printed on the serial console once the guest is up (SSH listening). A `login:` prompt counts too. */
export const BOOTED_MARKER = 'cumulo: booted';

/**
 * The interfaces' addresses as shell variables: `INTERFACES='eth0 eth1'`, then per interface
 * `IPV4_eth0` (space-separated addresses with prefix), `GATEWAY4_eth0`, `IPV6_eth0`, `GATEWAY6_eth0`.
 */
export const NETWORK_FILE = '/etc/cumulo/network';

/** Run once at boot (mode 0700), with the variables of FIRSTBOOT_ENV_FILE exported; renamed FIRSTBOOT_DONE_FILE after. */
export const FIRSTBOOT_FILE = '/etc/cumulo/firstboot';
/** `KEY='value'` lines, each value single-quoted for sh. */
export const FIRSTBOOT_ENV_FILE = '/etc/cumulo/firstboot.env';
export const FIRSTBOOT_DONE_FILE = '/etc/cumulo/firstboot.done';
/** The script's output (stdout and stderr). */
export const FIRSTBOOT_LOG = '/var/log/cumulo-firstboot.log';
