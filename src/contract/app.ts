import { z } from 'zod';
import type { MethodTable } from './define';

/** How the lab is being shown: an Electron window, or a browser tab served from 127.0.0.1. */
export const APP_MODES = ['electron', 'browser'] as const;
export type AppMode = (typeof APP_MODES)[number];

export const AppInfo = z.strictObject({
  name: z.literal('GateLab'),
  version: z.string(),
  mode: z.enum(APP_MODES),
  platform: z.string(),
  versions: z.strictObject({
    node: z.string(),
    electron: z.string().nullable(),
  }),
  startedAt: z.iso.datetime(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const appMethods = {
  'app.info': {
    summary: 'Name, version and mode of the running lab.',
    params: z.strictObject({}),
    result: AppInfo,
  },
} as const satisfies MethodTable;
