import { RENDERER_CSP, SECURITY_HEADERS } from '../browser/contentSecurityPolicy';
import { contentTypeOf, readStaticFile, resolveStaticPath } from '../browser/staticFiles';
import { APP_HOST, APP_SCHEME } from './security';

/**
 * The app:// protocol: serves the built renderer from `rendererDir` and
 * nothing else — only GET, only host `gatelab`, only files inside the
 * directory, the CSP on every page. Written against the Fetch API's
 * Request/Response, which is what `protocol.handle` takes, so it is tested
 * in plain Node.
 */
export function createAppProtocolHandler(rendererDir: string): (request: Request) => Promise<Response> {
  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return new Response('bad URL', { status: 400 });
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return new Response('not found', { status: 404 });
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('method not allowed', { status: 405 });
    const file = resolveStaticPath(rendererDir, url.pathname);
    const bytes = file === null ? null : await readStaticFile(file);
    if (file === null || bytes === null) return new Response('not found', { status: 404 });
    return new Response(new Uint8Array(bytes), {
      status: 200,
      headers: { ...SECURITY_HEADERS, 'Content-Type': contentTypeOf(file), 'Content-Security-Policy': RENDERER_CSP },
    });
  };
}
