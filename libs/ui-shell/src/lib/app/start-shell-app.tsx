import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { createRoot } from 'react-dom/client';
import { createUserManager } from '../auth/auth-context';
import { loadShellConfig } from '../shell-config/shell-config';
import { ShellApp, type ShellAppProps } from './shell-app';

/**
 * A product UI's `main.tsx`: reads the UI config (this service's, then the control plane's
 * modules), and renders the product's pages in the shell into `#root`.
 */
export function startShellApp({ product, routes, pages }: Pick<ShellAppProps, 'product' | 'routes' | 'pages'>): void {
  const element = document.getElementById('root') as HTMLElement;
  const root = createRoot(element);
  loadShellConfig().then(
    (config) => root.render(<ShellApp product={product} config={config} manager={createUserManager(config)} routes={routes} pages={pages} />),
    (error: Error) => {
      // Before the component library is up: plain text, readable in both themes.
      const message = document.createElement('p');
      message.textContent = `${product.title} could not start (${error.message}). Reload to try again.`;
      element.replaceChildren(message);
    },
  );
}
