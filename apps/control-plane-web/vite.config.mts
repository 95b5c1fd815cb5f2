import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The build lands in dist/apps/control-plane-web; control-plane-api's build copies it next to its
// main.js and serves it at `/`. `npm run dev:web` proxies the API to a running control plane.
export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/apps/control-plane-web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    // One file per page group keeps the first paint small: the administration pages load on demand.
    chunkSizeWarningLimit: 700,
  },
  server: { proxy: { '/api': 'http://localhost:8080' } },
});
