import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { trainerCommonShape } from '../core/recipe/recipeSchema';
import { trainerPart, type BackendDescriptor } from './backendDescriptor';
import { embeddedBackend } from './embedded/embeddedBackend';
import { EMBEDDED_ONNX } from './modelFormats';
import { BackendRegistry, backendRegistry } from './registry';

const trainerOfKind = (kind: string, sectionKind = kind): BackendDescriptor => ({
  kind,
  trainer: trainerPart({
    section: z.strictObject({ kind: z.literal(sectionKind), ...trainerCommonShape }),
    trains: [EMBEDDED_ONNX],
    placement: { gpu: 'optional', rayJob: true },
    create: () => {
      throw new Error('not started in this test');
    },
  }),
});

describe('the backend registry', () => {
  it("lists this build's kinds per role", () => {
    expect(backendRegistry.kinds('policy')).toEqual(['embedded', 'vllm', 'sglang']);
    expect(backendRegistry.kinds('trainer')).toEqual(['embedded', 'torch']);
    expect(backendRegistry.kinds('student')).toEqual(['scripted', 'openai']);
    expect(backendRegistry.find('trainer', 'vllm')).toBeUndefined();
    expect(backendRegistry.list().flatMap((d) => (d.python ? [d.python.name] : []))).toEqual(['vllm', 'sglang']);
  });

  it('registers a backend for as long as the caller wants it, and refuses a clash or a section of another kind', () => {
    const registry = new BackendRegistry([embeddedBackend]);
    const unregister = registry.register(trainerOfKind('relay'));
    expect(registry.kinds('trainer')).toEqual(['embedded', 'relay']);
    expect(() => registry.register(trainerOfKind('relay'))).toThrow(/a trainer of kind 'relay' is already registered/);
    expect(() => registry.register(trainerOfKind('embedded'))).toThrow(/already registered/);
    expect(() => registry.register(trainerOfKind('other', 'relay'))).toThrow(/its trainer section's kind must be the literal 'other'/);
    expect(() => registry.register({ kind: 'nothing' })).toThrow(/fills no role/);
    unregister();
    expect(registry.kinds('trainer')).toEqual(['embedded']);
  });

  it("checks each role's section with the kind's own schema, and names the kinds it has when one is unknown", () => {
    const { trainer } = new BackendRegistry([embeddedBackend, trainerOfKind('relay')]).sectionSchemas();
    const base = { batch_turns: 4, optimizer: { kind: 'adam', lr: 0.01 }, loss: {}, lora: { rank: 4, alpha: 8, target_modules: ['q_proj'] } };
    expect(trainer.parse({ kind: 'relay', ...base })).toMatchObject({ kind: 'relay', batch_turns: 4 });
    expect(trainer.parse({ kind: 'embedded', ...base })).toMatchObject({ kind: 'embedded', launcher: 'local' });
    const unknown = trainer.safeParse({ kind: 'llamacpp', ...base });
    expect(unknown.error?.issues[0]).toMatchObject({ path: ['kind'], message: `unknown kind "llamacpp"; this build has 'embedded', 'relay'` });
    const misspelt = trainer.safeParse({ kind: 'relay', ...base, launcher: 'local' });
    expect(misspelt.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['launcher'] });
  });
});
