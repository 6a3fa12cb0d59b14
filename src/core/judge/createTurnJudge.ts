// Builds the turn judge a recipe asks for (recipe `judge: { prm, hint }`),
// each part rule-based or an OpenAI-compatible endpoint.

import type { Recipe } from '../recipe/recipeSchema';
import { createLlmHintJudge, createLlmPrm, type LlmEndpointConfig } from './llmJudge';
import { createRuleHintJudge, createRulePrm } from './ruleJudge';
import { composeTurnJudge, type TurnJudge } from './turnJudge';

type Endpoint = { base_url: string; model: string; api_key_env?: string | undefined };

/** The hint judge asks as many times as the PRM votes (OpenClaw-RL uses one m for both); 3 otherwise. */
const DEFAULT_HINT_VOTES = 3;

export type TurnJudgeOptions = {
  /** Where api_key_env names are looked up (process.env by default). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Vote i of a judgment asks with seed + i when set. */
  seed?: number;
};

function endpointConfig(endpoint: Endpoint, votes: number, options: TurnJudgeOptions): LlmEndpointConfig {
  let apiKey = '';
  if (endpoint.api_key_env !== undefined) {
    const value = (options.env ?? process.env)[endpoint.api_key_env];
    if (value === undefined || value === '') {
      throw new Error(`the judge endpoint ${endpoint.base_url} needs its key in the environment variable ${endpoint.api_key_env}, which is not set`);
    }
    apiKey = value;
  }
  return { baseUrl: endpoint.base_url, model: endpoint.model, apiKey, votes, ...(options.seed === undefined ? {} : { seed: options.seed }) };
}

export function createTurnJudge(config: Recipe['judge'], options: TurnJudgeOptions = {}): TurnJudge {
  const prmVotes = config.prm.kind === 'openai' ? config.prm.votes : DEFAULT_HINT_VOTES;
  const prm = config.prm.kind === 'rule' ? createRulePrm() : createLlmPrm(endpointConfig(config.prm.endpoint, config.prm.votes, options));
  const hint =
    config.hint.kind === 'rule'
      ? createRuleHintJudge(config.hint.min_chars)
      : createLlmHintJudge(endpointConfig(config.hint.endpoint, prmVotes, options), config.hint.min_chars);
  return composeTurnJudge(prm, hint);
}
