import { mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rolePlacement } from '../../processes/devices/rolePlacement';
import type { HttpEngineSection } from '../httpEngine/httpEngineSection';
import { sglangPolicySection } from './sglangBackend';
import { BackendUnavailableError } from '../backendUnavailable';
import { sglangPolicy } from './sglangPolicy';
import { sglangServerArgs, sglangServerEnv, type SglangServerSettings } from './sglangServerArgs';
import { sglangServerConfig, writeSglangServerConfig } from './sglangServerConfig';

const settings: SglangServerSettings = {
  python: '/venv/bin/python',
  modelDir: '/models/qwen3-4b',
  port: 41235,
  configPath: '/tmp/gatelab-sglang-serving-x/sglang-server.yaml',
  servedModelName: 'gatelab-base',
  contextLength: 32768,
  maxLoraRank: 16,
  tensorParallel: 1,
  placementEnv: { CUDA_VISIBLE_DEVICES: '5', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' },
  seed: 0,
};

const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];

function sglangPolicyConfig(model: string): HttpEngineSection {
  return sglangPolicySection.parse({ kind: 'sglang', model, sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 512 } });
}

/** A GATELAB_HOME whose `sglang` venv has the package folder, and a model folder (what the environment lookup checks; nothing runs). */
async function fakeHost(): Promise<{ home: string; model: string }> {
  const home = await mkdtemp(path.join(tmpdir(), 'gatelab-sglang-home-'));
  await mkdir(path.join(home, 'sglang', 'bin'), { recursive: true });
  await writeFile(path.join(home, 'sglang', 'bin', 'python'), '');
  await mkdir(path.join(home, 'sglang', 'lib', 'python3.11', 'site-packages', 'sglang'), { recursive: true });
  const model = path.join(home, 'model');
  await mkdir(model);
  await writeFile(path.join(model, 'config.json'), '{}');
  return { home, model };
}

const oneGpu = { gpus: [{ index: 0, name: 'NVIDIA H200', memoryTotalMiB: 143771, memoryUsedMiB: 0 }], problem: null };

describe('the SGLang server command', () => {
  it('binds loopback, keeps the token off the command line, asks for raw log-probs, runtime LoRA and seeded sampling on the role’s GPU', () => {
    const args = sglangServerArgs(settings);
    expect(args.slice(0, 2)).toEqual(['-m', 'sglang.launch_server']);
    expect(flag(args, '--host')).toBe('127.0.0.1');
    expect(flag(args, '--port')).toBe('41235');
    expect(flag(args, '--config')).toBe(settings.configPath);
    expect(args).not.toContain('--api-key');
    expect(args).toContain('--enable-lora');
    expect(flag(args, '--max-lora-rank')).toBe('16');
    const targets = args.slice(args.indexOf('--lora-target-modules') + 1, args.indexOf('--max-loras-per-batch'));
    expect(targets).toEqual(['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']);
    expect(flag(args, '--max-loaded-loras')).toBe('4');
    expect(flag(args, '--sampling-defaults')).toBe('openai');
    expect(args).toContain('--enable-deterministic-inference');
    expect(flag(args, '--context-length')).toBe('32768');
    expect(args).not.toContain('--mem-fraction-static');
    expect(sglangServerEnv(settings)).toMatchObject({ CUDA_VISIBLE_DEVICES: '5', SGLANG_RETURN_ORIGINAL_LOGPROB: '1', HF_HUB_OFFLINE: '1' });
  });

  it('passes the recipe’s GPU memory share as --mem-fraction-static', () => {
    expect(flag(sglangServerArgs({ ...settings, memFractionStatic: 0.3 }), '--mem-fraction-static')).toBe('0.3');
  });

  it('writes the token as the api-key flag’s key, quoted, in a file only this user reads', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-sglang-config-'));
    const file = await writeSglangServerConfig(dir, '0123456789');
    expect(path.extname(file)).toBe('.yaml');
    expect(await readFile(file, 'utf8')).toBe('api-key: "0123456789"\n');
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(() => sglangServerConfig('a"b\nc: d')).toThrow(/letters, digits/);
  });
});

describe('policy.kind sglang on a host', () => {
  it('is refused with every reason on a host with no GPU, no SGLang environment and no model', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'gatelab-sglang-empty-'));
    const noGpu = { gpus: [], problem: 'nvidia-smi is not installed' };
    let reasons: string[] = [];
    try {
      sglangPolicy(sglangPolicyConfig(path.join(home, 'absent-model')), (p) => p, { host: noGpu, env: { GATELAB_HOME: home } });
    } catch (error) {
      expect(error).toBeInstanceOf(BackendUnavailableError);
      reasons = [...(error as BackendUnavailableError).reasons];
    }
    expect(reasons).toHaveLength(3);
    expect(reasons[0]).toMatch(/needs an NVIDIA GPU.*this host has none \(nvidia-smi is not installed\)/);
    expect(reasons[1]).toMatch(/no Python environment with sglang.*--with-sglang/);
    expect(reasons[2]).toMatch(/absent-model is not on this machine/);
  });

  it('is refused on a host without a GPU even where SGLang and the model are installed', async () => {
    const { home, model } = await fakeHost();
    expect(() => sglangPolicy(sglangPolicyConfig(model), (p) => p, { host: { gpus: [], problem: null }, env: { GATELAB_HOME: home } })).toThrow(
      /needs an NVIDIA GPU/,
    );
  });

  it('is built on a GPU host with the environment and the model, and refuses to start a role placed on the CPU', async () => {
    const { home, model } = await fakeHost();
    const backend = sglangPolicy(sglangPolicyConfig(model), (p) => p, { host: oneGpu, env: { GATELAB_HOME: home } });
    expect(backend.modelDir).toBe(model);
    await expect(backend.startEngine({ role: 'probe', placement: rolePlacement('cpu') })).rejects.toThrow(
      /needs a GPU, and the device map placed the probe role on the CPU/,
    );
  });
});
