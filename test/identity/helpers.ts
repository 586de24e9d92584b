import type { TestApp } from '../helpers/app.ts';

/** Events of an account with the given action, oldest first, straight from the table. */
export function eventsOf(app: TestApp, accountId: number, action: string) {
  return app.runtime.ctx.db
    .selectFrom('events')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('action', '=', action)
    .orderBy('id')
    .execute();
}

/** Real OpenSSH public keys (generated with ssh-keygen). */
export const KEYS = {
  ed25519: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPN0K/iavLgIDTQrbgZpLOwD2XuGnYQMzGIUfibihwo/ me@laptop',
  rsa: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQCmhQa1w+PFhoUJo6ADMXrf7hrvkJdzJnfG+60uIz+OPIvgfs/4dyrkfhoqzuy8fW7STYAN0vqEGzRG050dvpMpjy1r8LruuUCdCfulkdxh3EWiUrfIbTTx1BytzqT6JKfY/b54U15KE0GWerbGFIIEZ3s1212/LvLOOI+EWE0kcQ== rsa',
  ecdsa:
    'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBD1ElBwbeTrfvH4Oje5rQOVTfDfSbWbmr14MdpzVdAFPbRwAtVncAZwPZH8j2yMMhdaH01tqLm2SDARzsJgJfOg= ec',
} as const;
