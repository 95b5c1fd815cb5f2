import { productUiViteConfig } from '../../tools/build/vite-product-ui.mts';

// The build lands in dist/apps/control-plane-web; control-plane-api's build copies it next to its
// main.js and serves it at `/`. `vite --config apps/control-plane-web/vite.config.mts` proxies the API to a running control plane.
export default productUiViteConfig(import.meta.url, 'http://localhost:8080');
