import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The renderer: built into dist/renderer with relative URLs, so the same
// files load from app://gatelab/ (Electron) and from http://127.0.0.1:<port>/
// (browser mode).
export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  publicDir: 'public',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // No inline module-preload polyfill: the CSP allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      onwarn(warning, warn) {
        // zod 4 places /* @__PURE__ */ comments where Rollup ignores them; harmless.
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules/zod')) return;
        warn(warning);
      },
    },
  },
});
