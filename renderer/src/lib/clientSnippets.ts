// What a person pastes to point a client at live mode: OpenClaw's config
// (GateLab's gateway as its only provider, with the settings that keep its
// prompt small enough for a small model) and the OpenAI client's environment
// variables. Built from the endpoint the lab reports; the token is a secret,
// so the page shows these with it masked and copies them whole.

export type ClientEndpoint = { baseUrl: string; token: string; model: string };

/** The token as shown until the person reveals it: its length hidden too. */
export const MASKED_TOKEN = '••••••••••••••••';

/** An `openclaw.json` that sends every request to GateLab (and none to a hosted model). */
export function openClawSnippet(e: ClientEndpoint): string {
  const config = {
    models: {
      mode: 'replace',
      providers: {
        gatelab: {
          baseUrl: e.baseUrl,
          apiKey: e.token,
          api: 'openai-completions',
          timeoutSeconds: 1800,
          // The affinity headers are how live mode tells OpenClaw's sessions apart.
          models: [{ id: e.model, name: e.model, compat: { sendSessionAffinityHeaders: true } }],
        },
      },
    },
    // OpenClaw's default prompt overflows a small model's context: the minimal tool profile, no skills, no bootstrap files.
    tools: { profile: 'minimal' },
    agents: { defaults: { model: { primary: `gatelab/${e.model}` }, skills: [], skipBootstrap: true, contextInjection: 'never' } },
  };
  return JSON.stringify(config, null, 2);
}

/** The environment the official OpenAI clients read. */
export function envSnippet(e: ClientEndpoint): string {
  return [`export OPENAI_BASE_URL=${e.baseUrl}`, `export OPENAI_API_KEY=${e.token}`, `# model: ${e.model}`].join('\n');
}
