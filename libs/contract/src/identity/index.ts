// The suite's identity toolkit: one implementation of each, for the control plane, its products and their tools.
export { bearerToken, hasMalformedBearer, presentedCredential } from './bearer';
export type { PresentedCredentialOptions } from './bearer';
export { IssuerMetadata } from './oidc-discovery';
export type { IssuerDocument, IssuerMetadataOptions } from './oidc-discovery';
export { callerFromClaims, CLOCK_TOLERANCE_SECONDS, invalidToken, missingToken, SIGNING_ALGORITHMS, TokenVerifier, verifierProblems } from './token-verifier';
export type { TokenVerifierOptions, VerifiedCaller } from './token-verifier';
export { TokenRejected } from './token-rejected';
export { ClientCredentials, ClientCredentialsError } from './client-credentials';
export type { ClientCredentialsOptions } from './client-credentials';
export { SealedSecretUnreadable, SecretSealer, sealingKeyId, UnknownSealingKey } from './sealed-secrets';
export type { SealedSecret, SecretSealerOptions } from './sealed-secrets';
