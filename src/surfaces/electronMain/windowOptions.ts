import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The main window's options. Every webPreferences hardening flag is spelled
 * out, even the ones that are Electron's default today, so a test can hold
 * them and a default changing upstream cannot loosen them silently.
 */
export function createMainWindowOptions(preloadPath: string, iconPath: string | null, dark = true): BrowserWindowConstructorOptions {
  return {
    width: 1440,
    height: 960,
    minWidth: 960,
    minHeight: 640,
    title: 'GateLab',
    // The theme's page colour (theme.css --bg), so the first paint matches the system's theme.
    backgroundColor: dark ? '#0d1117' : '#f3f5f8',
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
