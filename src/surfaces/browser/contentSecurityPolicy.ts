/**
 * The renderer's Content-Security-Policy, one string for both ways it is
 * served: the Electron `app://` protocol handler and the browser-mode HTTP
 * server (the renderer's index.html carries the same policy in a meta tag).
 * Scripts only from the app's own origin: no inline script, no eval.
 */
export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers every response of the renderer's origin carries. */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // The browser-mode URL carries the launch token; never leak it in a Referer.
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
} as const;
