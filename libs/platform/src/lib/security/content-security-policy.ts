/**
 * The Content-Security-Policy of every page the suite serves (the control plane's web UI, each
 * service's API reference): scripts only from this origin (no inline script, no eval), styles
 * from this origin or carrying the page's nonce when it has one (the web UI's component library
 * writes its CSS variables into a <style> element marked with it), network calls only to this
 * origin and the origins given (the OIDC issuer, the suite's products), no framing.
 */
export function contentSecurityPolicy(options: { nonce?: string; connectOrigins?: readonly string[] } = {}): string {
  const connect = ["'self'", ...new Set(options.connectOrigins ?? [])].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self'${options.nonce !== undefined ? ` 'nonce-${options.nonce}'` : ''}`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
