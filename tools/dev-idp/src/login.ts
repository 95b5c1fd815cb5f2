import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, type Interaction, type Provider } from 'oidc-provider';
import { readForm, sendHtml } from './http.ts';
import { errorPage, loginPage } from './pages.ts';
import type { Realm } from './realm.ts';

/**
 * The interaction pages of the authorization code flow (`<issuer path>/login-actions/<uid>`):
 * a login form checked against the realm's users; consent is granted without asking, as for a
 * Keycloak client with `consentRequired: false`.
 */
export function createLoginHandler(provider: Provider, realm: Realm, loginPath: (uid: string) => string) {
  return async (req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> => {
    let interaction: Interaction;
    try {
      interaction = await provider.interactionDetails(req, res);
    } catch (error) {
      if (!(error instanceof errors.SessionNotFound)) throw error;
      return sendHtml(res, 400, errorPage({ error: 'This sign-in has expired or was already used. Start again from the application.' }));
    }
    if (interaction.uid !== uid) {
      return sendHtml(res, 400, errorPage({ error: 'This sign-in page does not belong to the current sign-in.' }));
    }

    if (interaction.prompt.name === 'consent') return grantConsent(provider, req, res, interaction);

    const page = (status: number, username?: string, error?: string) =>
      sendHtml(
        res,
        status,
        loginPage({
          realmName: realm.name,
          clientId: String(interaction.params['client_id']),
          action: loginPath(uid),
          username,
          error,
          demoUsers: realm.personNames(),
        }),
      );

    if (req.method !== 'POST') return page(200);

    const form = await readForm(req);
    if (form.has('cancel')) {
      return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'End-User aborted interaction' });
    }
    const username = form.get('username') ?? '';
    const person = realm.authenticate(username, form.get('password') ?? '');
    if (!person) return page(401, username, 'Invalid username or password.');
    return provider.interactionFinished(req, res, { login: { accountId: person.id } });
  };
}

async function grantConsent(provider: Provider, req: IncomingMessage, res: ServerResponse, interaction: Interaction): Promise<void> {
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = interaction.prompt.details;
  const accountId = interaction.session?.accountId;
  if (!accountId) throw new Error('consent prompt without a signed-in session');

  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId: String(interaction.params['client_id']) });
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } });
}
