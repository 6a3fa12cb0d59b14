import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { LiveServingView } from '../../../../src/contract/labLive';
import { envSnippet, MASKED_TOKEN, openClawSnippet } from '../../lib/clientSnippets';
import { useLiveStore } from '../../stores/liveStore';

/** A button that copies `text` and says so (or says why it could not). */
function CopyButton({ text, label, testId }: { text: string | null; label: string; testId: string }) {
  // The outcome of copying this very text: a new text (a new token) starts unsaid.
  const [copied, setCopied] = useState<{ text: string; ok: boolean } | null>(null);
  const outcome = copied === null || copied.text !== text ? 'idle' : copied.ok ? 'copied' : 'failed';
  return (
    <button
      type="button"
      className="button secondary small"
      data-testid={testId}
      disabled={text === null}
      title={`Copy the ${label} to the clipboard`}
      onClick={() => {
        if (text === null) return;
        navigator.clipboard.writeText(text).then(
          () => setCopied({ text, ok: true }),
          () => setCopied({ text, ok: false }),
        );
      }}
    >
      {outcome === 'copied' ? 'Copied ✓' : outcome === 'failed' ? 'Copy refused: reveal and select it' : 'Copy'}
    </button>
  );
}

const SNIPPETS = [
  { id: 'openclaw', label: 'OpenClaw (openclaw.json)' },
  { id: 'env', label: 'OpenAI client (environment)' },
] as const;
type SnippetId = (typeof SNIPPETS)[number]['id'];

/**
 * How to point a client at live mode: the base URL, the bearer token (a
 * secret: masked until the person reveals it, copied whole), the model, and a
 * ready-to-paste OpenClaw config or OpenAI environment.
 */
export function ConnectCard({ runDir, serving }: { runDir: string; serving: LiveServingView }) {
  // Each start of live mode has its own port and token: the endpoint is read again for it.
  const key = `${runDir}@${serving.baseUrl}`;
  const { endpoint, problem, loadEndpoint } = useLiveStore(
    useShallow((s) => ({ endpoint: s.endpoint?.key === key ? s.endpoint.view : null, problem: s.endpointProblem, loadEndpoint: s.loadEndpoint })),
  );
  const [revealed, setRevealed] = useState(false);
  const [snippet, setSnippet] = useState<SnippetId>('openclaw');
  useEffect(() => {
    void loadEndpoint(key);
  }, [key, loadEndpoint]);
  const token = endpoint?.token ?? null;
  const shown = { baseUrl: serving.baseUrl, model: serving.model, token: revealed && token !== null ? token : MASKED_TOKEN };
  const full = token === null ? null : { baseUrl: serving.baseUrl, model: serving.model, token };
  const build = snippet === 'openclaw' ? openClawSnippet : envSnippet;
  return (
    <section className="card connect-card" data-testid="live-connect">
      <header className="card-header">
        <h3>Point a client here</h3>
        <span className="card-meta">OpenAI-compatible · 127.0.0.1 only · no plugin in the client</span>
      </header>
      <dl className="connect-facts">
        <dt>Base URL</dt>
        <dd>
          <code data-testid="live-base-url">{serving.baseUrl}</code>
          <CopyButton text={serving.baseUrl} label="base URL" testId="copy-base-url" />
        </dd>
        <dt>API key</dt>
        <dd>
          <code data-testid="live-token" data-revealed={revealed && token !== null ? 'yes' : 'no'} className="secret">
            {shown.token}
          </code>
          <button
            type="button"
            className="button secondary small"
            data-testid="reveal-token"
            disabled={token === null}
            aria-pressed={revealed}
            onClick={() => setRevealed(!revealed)}
          >
            {revealed ? 'Hide' : 'Reveal'}
          </button>
          <CopyButton text={token} label="API key" testId="copy-token" />
        </dd>
        <dt>Model</dt>
        <dd>
          <code data-testid="live-model">{serving.model}</code>
        </dd>
      </dl>
      {problem !== null && token === null && (
        <p className="text-bad small" role="alert">
          The token could not be read: {problem}
        </p>
      )}
      <div className="snippet-tabs" role="tablist" aria-label="Client configuration">
        {SNIPPETS.map((s) => (
          <button
            key={s.id}
            type="button"
            role="tab"
            aria-selected={snippet === s.id}
            className={`snippet-tab${snippet === s.id ? ' current' : ''}`}
            data-testid={`snippet-tab-${s.id}`}
            onClick={() => setSnippet(s.id)}
          >
            {s.label}
          </button>
        ))}
        <CopyButton text={full === null ? null : build(full)} label="configuration, token included" testId="copy-snippet" />
      </div>
      <pre className="snippet" data-testid={`live-snippet-${snippet}`}>
        {build(shown)}
      </pre>
      <p className="muted small">
        Each conversation becomes a session: by <code>X-Session-Id</code> (OpenClaw-RL), OpenClaw&apos;s session-affinity headers, or else by its messages.
      </p>
    </section>
  );
}
