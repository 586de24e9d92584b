/** Where this installation's API and sign-in are, as the server tells its console (GET /console.json). */
export interface ConsoleConfig {
  client_id: string;
  authorize_url: string;
  token_url: string;
  /** RFC 7009: where sign-out sends the refresh token, which ends the sign-in on the server too. */
  revoke_url: string;
  api_root: string;
}

let loaded: Promise<ConsoleConfig> | undefined;

export function consoleConfig(): Promise<ConsoleConfig> {
  loaded ??= fetch('/console.json').then((res) => {
    if (!res.ok) throw new Error(`The console's settings did not load (${res.status})`);
    return res.json() as Promise<ConsoleConfig>;
  });
  return loaded;
}
