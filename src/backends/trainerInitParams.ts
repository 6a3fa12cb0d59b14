/**
 * What the trainer protocol's `init` carries, from the recipe: the same for
 * every trainer (src/core/protocols/trainerProtocol.ts).
 */
import type { z } from 'zod';
import type { initParamsSchema } from '../core/protocols/trainerProtocol';
import type { Recipe } from '../core/recipe/recipeSchema';

export type TrainerInitInput = z.input<typeof initParamsSchema>;

export function trainerInitParams(
  recipe: Recipe,
  run: { modelDir: string; baseSha256: string; storeDir: string; maxTokensPerCall?: number },
): TrainerInitInput {
  const t = recipe.trainer;
  return {
    modelDir: run.modelDir,
    baseSha256: run.baseSha256,
    storeDir: run.storeDir,
    lora: { rank: t.lora.rank, alpha: t.lora.alpha, targets: [...t.lora.target_modules], dtype: t.lora.dtype },
    objective: {
      // Raw log-probs, like the engine's.
      temperature: 1,
      clipLow: t.loss.clip_low,
      clipHigh: t.loss.clip_high,
      logRatioClamp: t.loss.log_ratio_clamp,
      wRl: t.loss.w_rl,
      wOpd: t.loss.w_opd,
      klCoef: t.loss.kl_coef,
      opdAdvantageClamp: t.loss.opd_advantage_clamp,
      entropyCoef: t.loss.entropy_coef,
      oldLogprobs: t.loss.old_logprobs,
    },
    optimizer: { lr: t.optimizer.lr, betas: [...t.optimizer.betas], weightDecay: t.optimizer.weight_decay },
    seed: recipe.seed,
    ...(run.maxTokensPerCall !== undefined ? { maxTokensPerCall: run.maxTokensPerCall } : {}),
  };
}
