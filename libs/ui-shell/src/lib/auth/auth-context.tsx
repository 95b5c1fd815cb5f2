import { User, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { ShellConfig } from '../shell-config/shell-config';

export const CALLBACK_PATH = '/auth/callback';

export interface Auth {
  manager: UserManager;
  /** The signed-in person's tokens; null before sign-in or after sign-out. */
  user: User | null;
  /** Sign-out has begun: the tokens are gone, and nothing may start a new sign-in meanwhile. */
  signingOut: boolean;
  /** Where the browser returns to after signing in. */
  signIn(returnTo?: string): Promise<void>;
  signOut(): Promise<void>;
}

const AuthContext = createContext<Auth | null>(null);

/**
 * oidc-client-ts against the suite's issuer with this UI's public client: authorisation code +
 * PKCE, tokens in sessionStorage (one tab's session), renewed silently with the refresh token
 * before they expire, and RP-initiated sign-out at the issuer. A person who signed in at another
 * product UI of the suite comes back from the issuer at once: their session there answers.
 */
export function createUserManager(config: ShellConfig): UserManager {
  const origin = window.location.origin;
  return new UserManager({
    authority: config.issuer,
    client_id: config.clientId,
    redirect_uri: `${origin}${CALLBACK_PATH}`,
    post_logout_redirect_uri: `${origin}/`,
    response_type: 'code',
    scope: 'openid profile email',
    automaticSilentRenew: true,
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
  });
}

export function AuthProvider({ manager, children }: { manager: UserManager; children: ReactNode }) {
  const [user, setUser] = useState<User | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  useEffect(() => {
    const events = manager.events;
    const loadedUser = (next: User) => setUser(next);
    const unloaded = () => setUser(null);
    events.addUserLoaded(loadedUser);
    events.addUserUnloaded(unloaded);
    // A renewal that fails (session ended at the issuer) leaves the person signed out.
    events.addSilentRenewError(unloaded);
    manager.getUser().then((stored) => {
      setUser(stored && !stored.expired ? stored : null);
      setLoaded(true);
    });
    return () => {
      events.removeUserLoaded(loadedUser);
      events.removeUserUnloaded(unloaded);
      events.removeSilentRenewError(unloaded);
    };
  }, [manager]);
  const auth = useMemo<Auth>(
    () => ({
      manager,
      user,
      signingOut,
      signIn: (returnTo = '/') => manager.signinRedirect({ state: { returnTo } }),
      signOut: async () => {
        // Removing the tokens unloads the person; without this flag the page would start a
        // sign-in at once, racing the sign-out navigation (and the issuer's session would win).
        // No renewal either: one finishing now would store the tokens again.
        setSigningOut(true);
        manager.stopSilentRenew();
        try {
          await manager.signoutRedirect();
        } catch (error) {
          setSigningOut(false);
          throw error;
        }
      },
    }),
    [manager, user, signingOut],
  );
  if (!loaded) return null;
  return <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
