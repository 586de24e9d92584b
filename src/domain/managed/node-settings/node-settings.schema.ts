import { type Static, Type } from 'typebox';

/** What a node has until its settings are changed: staff may log in as root on port 22, at any of its addresses. */
export const DEFAULT_SSH = { access: true, user: 'root', ip: 'any', port: 22 } as const;

const Ssh = Type.Object({
  access: Type.Boolean(),
  user: Type.String(),
  ip: Type.String(),
  port: Type.Integer(),
});

export const NodeSettingsSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  group: Type.String(),
  ssh: Ssh,
});
export type NodeSettings = Static<typeof NodeSettingsSchema>;
export type SshSettings = Static<typeof Ssh>;

/** The SSH fields to change; `ip` is `any` or one of the node's addresses (checked by the service). */
export const UpdateNodeSettingsBody = Type.Object({
  ssh: Type.Optional(
    Type.Object({
      access: Type.Optional(Type.Boolean()),
      user: Type.Optional(Type.String({ maxLength: 32 })),
      ip: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    }),
  ),
});
export type UpdateNodeSettings = Static<typeof UpdateNodeSettingsBody>;
