/** The signed-in user's tokens, kept in this browser's localStorage between visits. */

const TOKENS_KEY = 'cumulo.tokens';

export interface Tokens {
  access_token: string;
  refresh_token: string;
  /** Epoch ms when the access token runs out (a little early, to refresh in time). */
  expires_at: number;
  scope: string;
}

export function storedTokens(): Tokens | null {
  try {
    const text = localStorage.getItem(TOKENS_KEY);
    return text ? (JSON.parse(text) as Tokens) : null;
  } catch {
    return null;
  }
}

export function store(tokens: Tokens | null): void {
  if (tokens) localStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  else localStorage.removeItem(TOKENS_KEY);
}

/** The access token while it is still good; null when there is none or it needs refreshing. */
export function currentAccessToken(): string | null {
  const tokens = storedTokens();
  return tokens && tokens.expires_at > Date.now() ? tokens.access_token : null;
}
