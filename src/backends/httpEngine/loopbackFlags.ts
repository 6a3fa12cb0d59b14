/**
 * The flags that bind an HTTP engine's server to loopback on `port` (docs/design.md,
 * invariant 7): vLLM and SGLang spell them alike. Every other route of the
 * server then needs the per-launch token.
 */
export function loopbackFlags(port: number | string): string[] {
  return ['--host', '127.0.0.1', '--port', String(port)];
}
