import { productUiViteConfig } from '../../tools/build/vite-product-ui.mts';

// The build lands in dist/apps/mcp-gateway-web; mcp-gateway's build copies it next to its main.js and
// serves it at `/`. `vite --config apps/mcp-gateway-web/vite.config.mts` proxies the API to a running MCP gateway.
export default productUiViteConfig(import.meta.url, 'http://localhost:4444');
