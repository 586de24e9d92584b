/** The parameters of an authorization request that the sign-in form carries from the page to its POST. */
export const AUTHORIZE_PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/**
 * Headers of every page of the sign-in: nothing loads from elsewhere, nothing frames it, nothing caches
 * it, no address leaves it. `same-origin` rather than `no-referrer`: under the latter a browser sends
 * the form's POST with `Origin: null`, and the POST checks its Origin.
 */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'same-origin',
};

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f6f8;color:#1b1f24}
main{max-width:26rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin:0 0 1rem}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #8a939c;border-radius:4px}
.buttons{display:flex;gap:.8rem;margin-top:1.4rem}
button{font:inherit;padding:.5rem 1.2rem;border-radius:4px;border:1px solid #1f5fbf;cursor:pointer}
button[value=allow]{background:#1f5fbf;color:#fff}
button[value=deny]{background:#fff;color:#1f5fbf}
.error{background:#fde8e8;color:#8b1a1a;padding:.6rem .8rem;border-radius:4px}
ul{padding-left:1.2rem}
@media (max-width:480px){main{margin:0;border-radius:0;box-shadow:none}}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

/** What a scope text lets the app do, a line per resource, in words. */
function scopeLines(canonical: string): string[] {
  if (canonical === '*') return ['Everything your user may do, on every resource'];
  return canonical.split(' ').map((item) => {
    const [resource, level] = item.split(':');
    return `${resource}: ${level === 'read_write' ? 'read and change' : 'read only'}`;
  });
}

export interface SignInPage {
  clientLabel: string;
  /** Canonical scope text, or null when the request's scope does not parse (the error then comes after sign-in). */
  scopes: string | null;
  params: AuthorizeParams;
  action: string;
  username?: string;
  error?: string;
}

/** The sign-in form: who asks, for what, and the user's name and password. */
export function signInPage(p: SignInPage): string {
  const hidden = AUTHORIZE_PARAMS.filter((k) => p.params[k] !== undefined)
    .map((k) => `<input type="hidden" name="${k}" value="${esc(p.params[k] ?? '')}">`)
    .join('');
  const scopes = p.scopes === null ? [] : scopeLines(p.scopes);
  return page(
    `Sign in to ${p.clientLabel}`,
    `<h1>Sign in to ${esc(p.clientLabel)}</h1>
${p.error ? `<p class="error" role="alert" id="sign-in-error">${esc(p.error)}</p>` : ''}
${scopes.length ? `<p>${esc(p.clientLabel)} asks for access to your account:</p><ul>${scopes.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>` : ''}
<form method="post" action="${esc(p.action)}">${hidden}
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" required autofocus value="${esc(p.username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="buttons"><button type="submit" name="decision" value="allow">Sign in and allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form>`,
  );
}

/** A request that cannot go back to its client (unknown client, wrong redirect URI): said here instead (RFC 6749 4.1.2.1). */
export function errorPage(error: string, description: string): string {
  return page(
    'Sign-in refused',
    `<h1>This sign-in cannot go on</h1><p class="error" role="alert">${esc(description)}</p><p>Error: <code>${esc(error)}</code></p>`,
  );
}

/**
 * What /logout shows: the sign-in keeps nothing between visits (no cookie; each sign-in asks for the
 * password), so the visit ends here. With a refusal: why it does not go back to the application.
 */
export function signedOutPage(refusal?: { error: string; description: string }): string {
  const refused = refusal
    ? `<p class="error" role="alert">Not sent back to the application: ${esc(refusal.description)}</p><p>Error: <code>${esc(refusal.error)}</code></p>`
    : '';
  return page('Signed out', `<h1>You are signed out</h1>${refused}<p>Signing in again asks for your username and password.</p>`);
}
