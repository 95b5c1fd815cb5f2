/** The few HTML pages a person sees: sign in, sign out, errors. */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; background: #f4f5f7; margin: 0; }
  main { max-width: 22rem; margin: 4rem auto; padding: 2rem; background: #fff; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.15); }
  h1 { font-size: 1.3rem; margin-top: 0; }
  label { display: block; margin: .8rem 0 .3rem; }
  input { width: 100%; box-sizing: border-box; padding: .5rem; font-size: 1rem; }
  button { margin-top: 1.2rem; padding: .55rem 1rem; font-size: 1rem; }
  .error { color: #b00020; }
  .hint { color: #666; font-size: .85rem; }
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

export interface LoginPageOptions {
  realmName: string;
  clientId: string;
  action: string;
  username?: string;
  error?: string;
  demoUsers: string[];
}

export function loginPage(options: LoginPageOptions): string {
  return page(
    `Sign in to ${options.realmName}`,
    `<h1>Sign in to ${escapeHtml(options.realmName)}</h1>
<p class="hint">for ${escapeHtml(options.clientId)} (development identity provider)</p>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="${escapeHtml(options.action)}">
  <label for="username">Username or email</label>
  <input id="username" name="username" autocomplete="username" autofocus value="${escapeHtml(options.username ?? '')}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password">
  <button type="submit" name="login" value="login">Sign in</button>
  <button type="submit" name="cancel" value="cancel" formnovalidate>Cancel</button>
</form>
<p class="hint">Users in this realm: ${options.demoUsers.map(escapeHtml).join(', ')}</p>`,
  );
}

/** oidc-provider's confirmation form, submitted at once: signing out needs no second click here. */
export function logoutPage(form: string): string {
  const confirmed = form.replace('</form>', '<input type="hidden" name="logout" value="yes"></form>');
  return page(
    'Signing out',
    `<h1>Signing out…</h1>
${confirmed}
<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>
<script>document.getElementById('op.logoutForm').submit();</script>`,
  );
}

export function signedOutPage(): string {
  return page('Signed out', '<h1>You are signed out.</h1>');
}

export function errorPage(fields: Record<string, string>): string {
  const lines = Object.entries(fields).map(([key, value]) => `<p><strong>${escapeHtml(key)}</strong>: ${escapeHtml(value)}</p>`);
  return page('Sign-in error', `<h1>Something went wrong</h1>\n${lines.join('\n')}`);
}
