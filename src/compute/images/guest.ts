/**
 * What a built image promises the host. Both images boot with `root=/dev/vdX console=ttyS0` (the
 * kernel and initrd built with them), print BOOTED_MARKER on the serial console once SSH is up, and
 * name their interfaces eth0, eth1, ... in device order. Written into their filesystem before boot,
 * both take ifupdown stanzas under NETWORK_INTERFACES_DIR: `auto eth0`, then a stanza an address
 * (`iface eth0 inet static` or `inet6 static`, `address` with its prefix, `gateway` in one of them;
 * the busybox image reads no other option). The Debian image also runs a script once at first boot (FIRST_BOOT_SCRIPT, with
 * FIRST_BOOT_ENV as its environment, its output in FIRST_BOOT_LOG).
 */

export const BOOTED_MARKER = 'cumulo: booted';

export const NETWORK_INTERFACES_DIR = '/etc/network/interfaces.d';
export const FIRST_BOOT_SCRIPT = '/etc/cumulo/firstboot';
export const FIRST_BOOT_ENV = '/etc/cumulo/firstboot.env';
/** What FIRST_BOOT_SCRIPT is renamed to before it runs, so that it runs once even if it reboots the node. */
export const FIRST_BOOT_DONE = '/etc/cumulo/firstboot.done';
export const FIRST_BOOT_LOG = '/var/log/cumulo-firstboot.log';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `env` as a systemd EnvironmentFile: one `NAME="value"` a line, the value double-quoted with `\`,
 * `"`, `$` and backquote escaped (a newline stays as it is: systemd keeps it inside quotes).
 */
export function environmentFile(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!NAME.test(name)) throw new Error(`not an environment variable name: ${JSON.stringify(name)}`);
      if (value.includes('\0')) throw new Error(`the value of ${name} holds a NUL byte`);
      return `${name}="${value.replace(/[\\"$`]/g, (c) => `\\${c}`)}"\n`;
    })
    .join('');
}
