// Runs sandboxed before the renderer, in an isolated world: the page gets
// `window.gatelab` (invoke + subscribe over allow-listed channels), never
// ipcRenderer itself.
import { contextBridge, ipcRenderer } from 'electron';
import { createIpcTransport } from './ipcTransport';

contextBridge.exposeInMainWorld('gatelab', createIpcTransport(ipcRenderer));
