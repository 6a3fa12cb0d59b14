import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNvidiaSmiCsv, readGpuMemory } from './gpuMemory';

const ANSWER = 'index, memory.used [MiB], memory.total [MiB]\n0, 1 MiB, 81559 MiB\n1, 40212 MiB, 81559 MiB\n';

describe('parseNvidiaSmiCsv', () => {
  it('reads the csv answer of --query-gpu=index,memory.used,memory.total', () => {
    expect(parseNvidiaSmiCsv(ANSWER)).toEqual([
      { index: 0, usedMiB: 1, totalMiB: 81559 },
      { index: 1, usedMiB: 40212, totalMiB: 81559 },
    ]);
    expect(parseNvidiaSmiCsv('index, memory.used [MiB], memory.total [MiB]\r\n')).toEqual([]);
  });

  it('refuses anything else, naming the line', () => {
    expect(() => parseNvidiaSmiCsv('name, memory.used\nA100, 3 MiB\n')).toThrow(/unexpected header/);
    expect(() => parseNvidiaSmiCsv('index, memory.used [MiB], memory.total [MiB]\n0, [N/A], 81559 MiB\n')).toThrow(/line 2: memory.used "\[N\/A\]"/);
    expect(() => parseNvidiaSmiCsv('index, memory.used [MiB], memory.total [MiB]\n0, 1 MiB\n')).toThrow(/line 2: expected 3 fields/);
  });
});

describe('readGpuMemory runs nvidia-smi from PATH (a fake one here)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gatelab-fake-smi-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function fakeSmi(script: string): Promise<NodeJS.ProcessEnv> {
    const bin = await mkdtemp(path.join(dir, 'bin-'));
    const file = path.join(bin, 'nvidia-smi');
    await writeFile(file, `#!/bin/sh\n${script}\n`);
    await chmod(file, 0o755);
    return { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
  }

  it('passes the query as arguments and parses the answer', async () => {
    // The fake answers only the exact query the panel needs, so a changed argument fails here.
    const env = await fakeSmi(
      `[ "$1" = "--query-gpu=index,memory.used,memory.total" ] && [ "$2" = "--format=csv" ] || { echo "bad args: $*" >&2; exit 9; }\nprintf '${ANSWER.replace(/\n/g, '\\n')}'`,
    );
    expect(await readGpuMemory(env)).toEqual({
      gpus: [
        { index: 0, usedMiB: 1, totalMiB: 81559 },
        { index: 1, usedMiB: 40212, totalMiB: 81559 },
      ],
      problem: null,
    });
  });

  it('says why when nvidia-smi fails, is missing, or answers nonsense', async () => {
    expect(await readGpuMemory(await fakeSmi('echo "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver" >&2; exit 9'))).toEqual({
      gpus: [],
      problem: 'nvidia-smi failed: NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver',
    });
    expect(await readGpuMemory({ ...process.env, PATH: dir })).toEqual({
      gpus: [],
      problem: 'nvidia-smi is not on PATH: GPU memory cannot be read on this host',
    });
    expect((await readGpuMemory(await fakeSmi('echo hello'))).problem).toMatch(/unexpected header/);
  });
});
