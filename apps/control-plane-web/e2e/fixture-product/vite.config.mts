import { productUiViteConfig } from '../../../../tools/build/vite-product-ui.mts';

// A product UI that lives outside apps/<ui>/, as another team's does: its build goes where it says.
// Built by control-plane-web's build-fixture-product-ui target, which its browser tests depend on.
export default productUiViteConfig(import.meta.url, 'http://localhost:4999', { outDir: '../../../../dist/tests/fixture-product-ui' });
