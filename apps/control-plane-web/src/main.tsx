import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { loadUiConfig } from './app/ui-config';
import { createUserManager } from './auth/auth-context';

const root = createRoot(document.getElementById('root') as HTMLElement);

loadUiConfig().then(
  (config) => root.render(<App config={config} manager={createUserManager(config)} />),
  (error: Error) => {
    // Before the component library is up: plain text, readable in both themes.
    const message = document.createElement('p');
    message.textContent = `The control plane could not be reached (${error.message}). Reload to try again.`;
    document.getElementById('root')?.replaceChildren(message);
  },
);
