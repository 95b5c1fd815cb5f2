import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';

/**
 * The Vite build of a product UI (apps/<product>-web): React, the @arbor/* libraries (the UI
 * shell) from tsconfig.base.json's paths, the build in dist/apps/<app> (the serving service's
 * build copies it next to its main.js), and a dev server that proxies the API to `apiUrl`.
 */
export function productUiViteConfig(appUrl: string, apiUrl: string): UserConfig {
  const root = fileURLToPath(new URL('.', appUrl));
  return defineConfig({
    root,
    plugins: [react()],
    resolve: { tsconfigPaths: true },
    build: {
      outDir: fileURLToPath(new URL(`../../dist/apps/${basename(root)}`, appUrl)),
      emptyOutDir: true,
      sourcemap: true,
      // One file per page group keeps the first paint small: the other pages load on demand.
      chunkSizeWarningLimit: 800,
    },
    server: { proxy: { '/api': apiUrl } },
  });
}
