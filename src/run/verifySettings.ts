// What the gate's verify step checks a candidate against: the recipe's LoRA
// on this base's shapes, and the recipe's bound on the update's norm.
import type { VerifySettings } from '../core/gate/verifyCandidate';
import type { Recipe } from '../core/recipe/recipeSchema';
import { adapterSpec, loraModuleFromPeft } from '../core/weights/adapterSpec';
import type { PolicyShape } from '../core/weights/policyConfig';

export function verifySettings(recipe: Recipe, shape: PolicyShape): VerifySettings {
  const l = recipe.trainer.lora;
  return {
    spec: adapterSpec(shape, { rank: l.rank, alpha: l.alpha, targets: l.target_modules.map(loraModuleFromPeft), dtype: l.dtype }),
    lora: { rank: l.rank, alpha: l.alpha, targets: [...l.target_modules] },
    maxUpdateNorm: recipe.gate.max_update_norm,
  };
}
