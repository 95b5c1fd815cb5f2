import { productUiViteConfig } from '../../tools/build/vite-product-ui.mts';

// The build lands in dist/apps/ai-gateway-web; ai-gateway's build copies it next to its main.js and
// serves it at `/`. `vite --config apps/ai-gateway-web/vite.config.mts` proxies the API to a running gateway.
export default productUiViteConfig(import.meta.url, 'http://localhost:4000');
