/**
 * Live mode (`gatelab live`): a run with no student and no task sessions.
 * The recipe's serving engine, probe engine, trainer and gate start as for a
 * run; the gateway serves outside clients (OpenClaw with its base URL pointed
 * here); their conversations are recognised, judged and journaled as
 * sessions (liveSessions.ts), and their judged turns train candidates that
 * go through the same gate — verified, probed on the recipe's probe set,
 * confirmed by a person.
 */
import { LiveRun } from '../liveRun';
import { createRun, type RunOverrides } from '../createRun';
import { LiveSessions } from './liveSessions';

export type LiveModeOptions = {
  overrides?: RunOverrides;
  /** A session no turn was served to for this long is journaled (its last reply untrained). */
  idleSeconds?: number;
  onLog?: (line: string) => void;
  /** Told whenever an open conversation changes (the desktop redraws its Live page). */
  onChange?: () => void;
  /** A failure live mode stops on (the journal, the trainer). */
  onFatal?: (error: Error) => void;
};

export type LiveMode = {
  run: LiveRun;
  sessions: LiveSessions;
  /** Where outside clients connect: `<url>/v1`, the bearer token, the model name. */
  endpoint: { baseUrl: string; token: string; model: string };
  /** Journals every open session, lets the trainer finish its step, stops every process. */
  close(): Promise<void>;
};

export const DEFAULT_IDLE_SECONDS = 600;

/** A run folder of the recipe's tasks given to live mode (their session numbers would collide). */
export class NotLiveRunError extends Error {}

/** Creates a run folder from the recipe and starts serving outside traffic. */
export async function startLiveMode(recipeFile: string, outDir: string, options: LiveModeOptions = {}): Promise<LiveMode> {
  const runDir = await createRun(recipeFile, outDir, options.overrides ?? {}, { live: true });
  return openLiveMode(runDir, options);
}

/** Serves outside traffic on a live-mode run folder (a new one, or one stopped before: it continues where its journal ends). */
export async function openLiveMode(runDir: string, options: LiveModeOptions = {}): Promise<LiveMode> {
  const run = await LiveRun.open(runDir, { ...(options.onLog ? { onLog: options.onLog } : {}), ...(options.onFatal ? { onFatal: options.onFatal } : {}) });
  if (!run.isLiveMode) {
    await run.close();
    throw new NotLiveRunError(`${runDir} is a run of the recipe's tasks, not a live-mode run: continue it with 'gatelab resume --run ${runDir}'`);
  }
  const parts = run.servingParts();
  const sessions = new LiveSessions({
    runDir,
    runId: run.runId,
    journal: run.journal,
    judge: run.backends.judge(),
    sampling: { countPromptTokens: (messages) => parts.tokenizer.countPromptTokens(messages), maxPositions: parts.tokenizer.maxPositions },
    feed: parts.feed,
    ...(options.onLog ? { onLog: options.onLog } : {}),
    ...(options.onChange ? { onChange: options.onChange } : {}),
    onFatal: (error) => run.failWith(error),
  });
  const detach = sessions.attach(parts.gateway.turnLog);
  const idleMs = (options.idleSeconds ?? DEFAULT_IDLE_SECONDS) * 1000;
  const sweep = setInterval(() => sessions.closeIdle(idleMs), Math.min(idleMs, 30_000));
  sweep.unref();
  const endpoint = run.gatewayEndpoint();
  let closing: Promise<void> | undefined;
  return {
    run,
    sessions,
    endpoint: { baseUrl: `${endpoint.url}/v1`, token: endpoint.token, model: endpoint.model },
    close: () => {
      closing ??= (async () => {
        clearInterval(sweep);
        detach();
        try {
          await sessions.closeAll();
        } finally {
          await run.close();
        }
      })();
      return closing;
    },
  };
}
