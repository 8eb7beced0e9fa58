export { ensureServingCredentials, type ServingCredentials, type ServingCredentialsOptions } from './serving.js';
export { PKI_DIR, CA_CERT_FILE, CA_KEY_FILE, SERVING_CERT_FILE, SERVING_KEY_FILE } from './serving.js';
export { loadServingCredentialsFromFiles, type FileServingCredentials } from './tlsfiles.js';
export { toAltName, toAltNames, type AltName } from './hosts.js';
export { ensureAdminToken, adminTokenEntry, ADMIN_TOKEN_FILE, ADMIN_USER_NAME, ADMIN_GROUPS } from './admintoken.js';
export { parseTokenAuthFile, loadTokenAuthFile, type TokenEntry, type TokenFileOptions } from './tokenfile.js';
export { parseBearerToken, EXTRA_SPACE_WARNING, type BearerToken } from './bearer.js';
export { TokenAuthenticator } from './authenticator.js';
export { withAuthenticatedGroup, ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, type UserInfo } from './user.js';
export { buildKubeconfig, writeKubeconfig, DEFAULT_KUBECONFIG_NAME, type Kubeconfig, type KubeconfigOptions } from './kubeconfig.js';
export { CsvParseError, parseCsv } from './csv.js';
export { Authentication, DEFAULT_API_AUDIENCE, INVALID_BEARER_TOKEN, type AuthenticationConfig, type RequestAuthentication, type TokenReviewAnswer } from './authentication.js';
export {
  ServiceAccountTokens, OPENID_CONFIGURATION_PATH, JWKS_PATH, EXPIRATION_EXTENSION_SECONDS, WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS,
  type ServiceAccountTokenConfig, type TokenAnswer,
} from './satokens.js';
export {
  makeUsername, splitUsername, serviceAccountUser, boundTokenClaims, legacyTokenClaims, validateBoundToken, validateLegacyToken, TokenError,
  LEGACY_ISSUER, ALL_SERVICE_ACCOUNTS_GROUP, SERVICE_ACCOUNT_GROUP_PREFIX, POD_NAME_KEY, POD_UID_KEY, NODE_NAME_KEY, NODE_UID_KEY, CREDENTIAL_ID_KEY,
  LEGACY_TOKEN_LAST_USED_LABEL, LEGACY_TOKEN_INVALID_SINCE_LABEL,
  type ServiceAccountInfo, type ServiceAccountTokenGetter, type BoundResource, type ObjectRef, type BoundTokenRequest,
} from './serviceaccount.js';
export { ensureServiceAccountSigningKey, parsePrivateKeyPEM, parsePublicKeysPEM, SA_KEY_FILE, SA_PUBLIC_KEY_FILE } from './sakeys.js';
export { signJWT, parseJWS, verifyJWS, keyIDFor, publicJWK, algorithmFor, type SigningAlgorithm } from './jose.js';
export { authenticateClientCertificate, certificateUser, X509_UID_OID, type CertificateAnswer } from './x509.js';
export { issueClientCert, ensureAdminClientCert, readDataDirCA, ADMIN_CERT_FILE, ADMIN_KEY_FILE, ADMIN_CERT_ORGANIZATION, type ClientCertSubject } from './clientcert.js';
export { type KeyPairPem } from './certgen.js';
export { ensureFrontProxyCredentials, FRONT_PROXY_CLIENT_NAME, FRONT_PROXY_CA_CERT_FILE, FRONT_PROXY_CLIENT_CERT_FILE, FRONT_PROXY_CLIENT_KEY_FILE, type FrontProxyCredentials } from './frontproxy.js';
export { RequestHeaderAuthenticator, type RequestHeaderConfig } from './requestheader.js';
