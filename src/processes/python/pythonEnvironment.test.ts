import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  findModelFolder,
  findPythonEnvironment,
  gatelabHome,
  PythonEnvironmentMissingError,
  pythonEnvironmentPaths,
  pythonEnvironmentReady,
  torchWorkerSources,
} from './pythonEnvironment';

describe('pythonEnvironment', () => {
  let home = '';
  afterEach(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('lives under GATELAB_HOME, or ~/.cache/gatelab', () => {
    expect(gatelabHome({})).toBe(path.join(homedir(), '.cache', 'gatelab'));
    expect(gatelabHome({ GATELAB_HOME: '/srv/gl' })).toBe('/srv/gl');
    expect(pythonEnvironmentPaths({ GATELAB_HOME: '/srv/gl' }).venv).toBe(path.join('/srv/gl', 'python'));
  });

  it('names `npm run setup:python` when the environment or the model is missing', async () => {
    home = await mkdtemp(path.join(tmpdir(), 'gatelab-home-'));
    const env = { GATELAB_HOME: home };
    expect(() => findPythonEnvironment(env)).toThrow(PythonEnvironmentMissingError);
    expect(() => findPythonEnvironment(env)).toThrow(/npm run setup:python/);
    expect(() => findModelFolder('smollm2-135m-instruct', env)).toThrow(/npm run setup:python/);
    expect(pythonEnvironmentReady(env)).toBe(false);
  });

  it('accepts an environment only once its stamp is written (the install finished)', async () => {
    home = await mkdtemp(path.join(tmpdir(), 'gatelab-home-'));
    const env = { GATELAB_HOME: home };
    const { python, venv } = pythonEnvironmentPaths(env);
    await mkdir(path.dirname(python), { recursive: true });
    await writeFile(python, '');
    expect(() => findPythonEnvironment(env)).toThrow(/missing or incomplete/);
    await writeFile(path.join(venv, '.gatelab-requirements.sha256'), 'x\n');
    expect(findPythonEnvironment(env).python).toBe(python);
  });

  it('finds the torch worker sources beside the lab', () => {
    expect(torchWorkerSources()).toMatch(/src[/\\]backends[/\\]torch$/);
  });
});
