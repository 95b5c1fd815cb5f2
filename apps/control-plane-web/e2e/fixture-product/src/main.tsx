import { startShellApp } from '@arbor/ui-shell';
import { FIXTURE_PRODUCT } from './fixture-api';
import { HelloPage } from './hello-page';

startShellApp({ product: FIXTURE_PRODUCT, pages: [{ to: '/', label: 'Hello' }], routes: [{ index: true, element: <HelloPage /> }] });
