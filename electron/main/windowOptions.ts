import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The main window's options. Every webPreferences hardening flag is spelled
 * out, even the ones that are Electron's default today, so a test can hold
 * them and a default changing upstream cannot loosen them silently.
 */
export function createMainWindowOptions(preloadPath: string, iconPath: string | null): BrowserWindowConstructorOptions {
  return {
    width: 1440,
    height: 960,
    minWidth: 960,
    minHeight: 640,
    title: 'GateLab',
    backgroundColor: '#0f1419',
    // Shown on ready-to-show, so nobody sees an unstyled flash.
    show: false,
    ...(iconPath === null ? {} : { icon: iconPath }),
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
    },
  };
}
