// electron-builder: Linux AppImage and deb (`npm run dist`). CommonJS because
// package.json is "type": "module" and electron-builder loads configs with
// require(). Needs the Electron binary in node_modules/electron/dist.

/** @type {import('electron-builder').Configuration} */
module.exports = {
  appId: 'dev.gatelab.desktop',
  productName: 'GateLab',
  copyright: 'GateLab contributors',
  directories: { output: 'release', buildResources: 'assets/icons' },
  // What the app runs: the built code, its assets (reference runs, models,
  // homework, icons), the recipes and package.json; never sources, tests or source maps.
  files: ['dist/**/*', '!dist/**/*.map', 'assets/**/*', 'recipes/**/*', 'package.json'],
  asar: true,
  // Native addons cannot be dlopen()ed from inside an archive.
  asarUnpack: ['node_modules/onnxruntime-node/**'],
  // Pack the binary the set-up downloaded rather than fetching another one.
  electronDist: 'node_modules/electron/dist',
  // onnxruntime-node ships N-API prebuilds; there is nothing to rebuild.
  npmRebuild: false,
  // Electron fuses, flipped in the binary at packaging time.
  electronFuses: {
    runAsNode: false,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    enableCookieEncryption: true,
    grantFileProtocolExtraPrivileges: false,
    loadBrowserProcessSpecificV8Snapshot: false,
  },
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Science',
    icon: 'assets/icons/linux',
    synopsis: 'A lab for RL weight evolution of LLM agents, with a release gate',
    description: 'GateLab trains LLM agents OpenClaw-RL style and lets a trained weight update reach serving only through a release gate.',
    maintainer: 'GateLab contributors <gatelab@localhost>',
    executableName: 'gatelab',
  },
  deb: { priority: 'optional' },
  appImage: { artifactName: 'GateLab-${version}-${arch}.AppImage' },
};
