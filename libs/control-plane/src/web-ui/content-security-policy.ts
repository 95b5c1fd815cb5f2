/**
 * The Content-Security-Policy of the web UI's page: scripts only from this origin (no inline
 * script, no eval), styles from this origin or carrying the page's nonce (the component library
 * writes its CSS variables into a <style> element marked with it), network calls only to this
 * origin, the OIDC issuer and the suite's products (their dashboard summaries), no framing.
 */
export function contentSecurityPolicy(options: { nonce: string; connectOrigins: readonly string[] }): string {
  const connect = ["'self'", ...new Set(options.connectOrigins)].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${options.nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
