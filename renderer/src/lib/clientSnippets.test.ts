import { describe, expect, test } from 'vitest';
import { envSnippet, MASKED_TOKEN, openClawSnippet } from './clientSnippets';

const endpoint = { baseUrl: 'http://127.0.0.1:4321/v1', token: 'secret-token-0123456789', model: 'gatelab-policy' };

describe('what a person pastes to point a client at live mode', () => {
  test('OpenClaw: GateLab as the only provider, its model primary, affinity headers on, the small-prompt settings', () => {
    const config = JSON.parse(openClawSnippet(endpoint)) as {
      models: { mode: string; providers: Record<string, { baseUrl: string; apiKey: string; models: { id: string; compat: unknown }[] }> };
      tools: unknown;
      agents: { defaults: { model: { primary: string }; skills: unknown[] } };
    };
    expect(config.models.mode).toBe('replace');
    expect(Object.keys(config.models.providers)).toEqual(['gatelab']);
    expect(config.models.providers['gatelab']).toMatchObject({ baseUrl: endpoint.baseUrl, apiKey: endpoint.token });
    expect(config.models.providers['gatelab']!.models[0]).toEqual({
      id: 'gatelab-policy',
      name: 'gatelab-policy',
      compat: { sendSessionAffinityHeaders: true },
    });
    expect(config.agents.defaults.model.primary).toBe('gatelab/gatelab-policy');
    expect(config.agents.defaults.skills).toEqual([]);
    expect(config.tools).toEqual({ profile: 'minimal' });
  });

  test('the OpenAI client: base URL and key in its environment variables', () => {
    expect(envSnippet(endpoint).split('\n')).toEqual([
      'export OPENAI_BASE_URL=http://127.0.0.1:4321/v1',
      'export OPENAI_API_KEY=secret-token-0123456789',
      '# model: gatelab-policy',
    ]);
  });

  test('the masked token gives away nothing of the secret, not even its length', () => {
    expect(MASKED_TOKEN).not.toContain(endpoint.token.slice(0, 4));
    expect(openClawSnippet({ ...endpoint, token: MASKED_TOKEN })).not.toContain(endpoint.token);
  });
});
