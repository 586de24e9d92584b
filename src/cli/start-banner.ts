import type { BootstrapResult } from '../domain/account/bootstrap.ts';
import { VERSION } from '../version.ts';

export interface StartFacts {
  /** Where the server listens, `http://127.0.0.1:8080`. */
  address: string;
  database: string;
  bootstrap: BootstrapResult | null;
  /** Whether CUMULO_BOOTSTRAP_TOKEN and CUMULO_BOOTSTRAP_PASSWORD are set. */
  fixedToken: boolean;
  fixedPassword: boolean;
  consoleBuilt: boolean;
  /** How nodes run when they are real (CUMULO_COMPUTE=qemu): `QEMU under TCG (why), user networking`. */
  compute?: string | null;
}

/** How the console line tells the operator to sign in, when the banner itself does not show a password. */
function signInHint(facts: StartFacts, created: Extract<BootstrapResult, { kind: 'created' }> | null): string {
  if (!facts.consoleBuilt) return ' (not built: run npm run build:console, then start again)';
  if (facts.fixedPassword) return ' (sign in as "admin" with the password in CUMULO_BOOTSTRAP_PASSWORD)';
  if (created && !created.password) {
    return ` (admin has no password yet: give it one with npx cumulo user set-password --username ${created.username})`;
  }
  return '';
}

/**
 * What `serve` prints once it listens: the first line, which scripts read the API's base URL from
 * (`Cumulo is ready at <base> ...`), the API document and the console, then, on a first start
 * only, the password and token made up for `admin`, each alone on a line indented by two spaces.
 */
export function startBanner(facts: StartFacts): string {
  const { address } = facts;
  const base = `${address}/v4`;
  const created = facts.bootstrap?.kind === 'created' ? facts.bootstrap : null;
  const lines = [
    `Cumulo is ready at ${base} (version ${VERSION}, database: ${facts.database})`,
    `API document: ${address}/docs (OpenAPI: ${base}/openapi.json)`,
    `Web console: ${address}/${signInHint(facts, created)}`,
  ];
  if (facts.compute) lines.push(`Nodes: ${facts.compute}`);
  if (created?.password) {
    lines.push(
      '',
      `Sign in to the console at ${address}/ as "${created.username}" with this password, shown only this once:`,
      '',
      `  ${created.password}`,
      '',
      `Change it with: npx cumulo user set-password --username ${created.username}`,
    );
  }
  if (created && !facts.fixedToken) {
    lines.push(
      '',
      `A personal access token for user "${created.username}" (scope *), shown only this once:`,
      '',
      `  ${created.token}`,
      '',
      `Try: curl -H "Authorization: Bearer ${created.token}" ${base}/profile`,
      'More tokens: npx cumulo token create --username admin (or POST /v4/profile/tokens).',
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}
