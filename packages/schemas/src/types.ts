/** Shapes of the extracted OpenAPI data and of the served-resource descriptions. */

export type JsonObject = { [key: string]: any };

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A resource the server serves, as the OpenAPI builders need to know it. */
export interface ServedResource extends GroupVersionKind {
  /** Plural resource name in URLs, e.g. `configmaps`. */
  resource: string;
  namespaced: boolean;
}

/** What scripts/extract.mjs writes to src/generated/openapi.ts. */
export interface ExtractedOpenAPI {
  source: { file: string; sha256: string; info: JsonObject };
  swagger: string;
  info: JsonObject;
  definitions: Record<string, JsonObject>;
  parameters: Record<string, JsonObject>;
  paths: Record<string, JsonObject>;
  security: JsonObject[];
  securityDefinitions: Record<string, JsonObject>;
}
