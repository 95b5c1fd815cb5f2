import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type UserConfig } from 'vite';

/** Scripts and styles above 1 KiB: the files webUiMiddleware serves precompressed. */
const COMPRESSIBLE = /\.(js|css)$/;

/**
 * Writes `<file>.br` (quality 11) and `<file>.gz` (level 9) beside each built script and style:
 * webUiMiddleware serves these as they are, so a first visit neither waits for brotli on the fly
 * (about 30 ms per 750 kB at the middleware's quality 4, on the service's event loop) nor gets
 * the larger result of it (quality 11 is ~15 % smaller).
 */
function precompressAssets(): Plugin {
  return {
    name: 'arbor-precompress-assets',
    apply: 'build',
    writeBundle({ dir }) {
      const assets = join(dir ?? '', 'assets');
      for (const name of readdirSync(assets).filter((file) => COMPRESSIBLE.test(file))) {
        const content = readFileSync(join(assets, name));
        if (content.length < 1024) continue;
        writeFileSync(
          join(assets, `${name}.br`),
          brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }),
        );
        writeFileSync(join(assets, `${name}.gz`), gzipSync(content, { level: 9 }));
      }
    },
  };
}

/**
 * The UI config (`GET /api/v1/ui/config`, what the shell starts from) asked for while the scripts
 * download instead of after they ran: the shell's fetch of it takes the preloaded answer.
 */
function preloadUiConfig(): Plugin {
  return {
    name: 'arbor-preload-ui-config',
    transformIndexHtml: () => [{ tag: 'link', attrs: { rel: 'preload', href: '/api/v1/ui/config', as: 'fetch', crossorigin: 'anonymous' }, injectTo: 'head-prepend' }],
  };
}

export interface ProductUiBuildOptions {
  /**
   * Where the build goes, absolute or relative to the folder of the Vite config. By default
   * `dist/apps/<folder>` of a repository whose UIs are `apps/<folder>/`, as Arbor's are.
   */
  outDir?: string;
}

/**
 * The Vite build of a product UI: React, the @arbor/* libraries (the UI shell) from the nearest
 * tsconfig's paths, the app in the folder of the Vite config (`appUrl`, its `import.meta.url`),
 * the build in `options.outDir` (by default dist/apps/<app>, which the serving service's build
 * copies next to its main.js), and a dev server that proxies the API to `apiUrl`.
 */
export function productUiViteConfig(appUrl: string, apiUrl: string, options: ProductUiBuildOptions = {}): UserConfig {
  const root = fileURLToPath(new URL('.', appUrl));
  return defineConfig({
    root,
    plugins: [react(), preloadUiConfig(), precompressAssets()],
    resolve: { tsconfigPaths: true },
    build: {
      outDir: options.outDir ? resolve(root, options.outDir) : fileURLToPath(new URL(`../../dist/apps/${basename(root)}`, appUrl)),
      emptyOutDir: true,
      sourcemap: true,
      // One file per page group keeps the first paint small: the other pages load on demand.
      chunkSizeWarningLimit: 800,
    },
    server: { proxy: { '/api': apiUrl } },
  });
}
