/**
 * Service account issuer discovery (kube's routes.OpenIDMetadataServer): the OpenID provider
 * configuration at /.well-known/openid-configuration and the key set at /openid/v1/jwks, so
 * relying parties (cloud workload identity, Vault, other clusters) can verify the tokens this
 * server issues. Both are GET-only go-restful routes whose answers clients may cache for an
 * hour; who may read them is RBAC's system:service-account-issuer-discovery (service accounts).
 * Like kube, nothing is served when the issuer is not an https URL.
 */
import { Router, type Response } from 'express';
import { newMethodNotAllowed } from '@windlass/machinery';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH, type ServiceAccountTokens } from '@windlass/auth';
import { writeError } from '../respond.js';

/** The max-age kube's static key getter allows (GetCacheAgeMaxSeconds). */
const cacheControl = 'public, max-age=3600';

export function serviceAccountIssuerDiscovery(tokens: ServiceAccountTokens | undefined, externalAddress: () => string): Router {
  const router = Router();
  if (!tokens) return router;
  let warned = false;
  const send = (res: Response, contentType: string, body: string) => {
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', cacheControl);
    res.status(200).end(body);
  };
  router.all(OPENID_CONFIGURATION_PATH, (req, res, next) => {
    const config = tokens.openIDConfiguration(externalAddress());
    if ('error' in config) {
      if (!warned) console.error(`Could not construct pre-rendered responses for ServiceAccountIssuerDiscovery endpoints. Endpoints will not be enabled. Error: ${config.error}`);
      warned = true;
      return next();
    }
    if (req.method !== 'GET') return writeError(res, newMethodNotAllowed());
    send(res, 'application/json', config.document);
  });
  router.all(JWKS_PATH, (req, res, next) => {
    if ('error' in tokens.openIDConfiguration(externalAddress())) return next();
    if (req.method !== 'GET') return writeError(res, newMethodNotAllowed());
    send(res, 'application/jwk-set+json', tokens.jwks());
  });
  return router;
}
