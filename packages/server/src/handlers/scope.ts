/** Everything a verb handler needs about one request. */
import type { Request, Response } from 'express';
import type { RequestInfo } from '../requestinfo.js';
import type { ResourceDefinition } from '../registry/types.js';
import type { Store } from '../registry/store.js';
import type { Negotiated } from '../negotiation.js';

export interface RequestScope {
  req: Request;
  res: Response;
  info: RequestInfo;
  query: URLSearchParams;
  def: ResourceDefinition;
  store: Store;
  negotiated: Negotiated;
}
