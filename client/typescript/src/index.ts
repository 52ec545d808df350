// The TypeScript client of the svc API: openapi-fetch over the types openapi-typescript
// generates from api/openapi.yaml (src/schema.d.ts), plus what makes it safe to use: the key,
// SPEC 7.4 retries, errors, list iterators, externalIds and webhook verification.
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./schema.js";

export type { paths, components } from "./schema.js";
export { retryingFetch, defaultRetry, type RetryPolicy } from "./retry.js";
export { eachOffset, eachCursor } from "./pages.js";
export { verifyWebhook, WebhookVerificationError, productPrefixes, type VerifyOptions } from "./webhook.js";
export { SvcError, unwrap, newExternalId } from "./errors.js";

import { retryingFetch, defaultRetry, type RetryPolicy } from "./retry.js";

export interface SvcClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The API key, svc_sk_<env>_<secret>; sent as a Bearer token. */
  apiKey: string;
  /** The retry policy (defaultRetry when absent; { ...defaultRetry, maxRetries: 0 } never retries). */
  retry?: RetryPolicy;
  /** The fetch to send with (globalThis.fetch when absent). */
  fetch?: typeof fetch;
}

/** createSvcClient returns a typed client of every svc endpoint. */
export function createSvcClient(opts: SvcClientOptions): Client<paths> {
  if (!opts.apiKey.startsWith("svc_sk_")) {
    throw new Error("svc: the key must look like svc_sk_<env>_<secret>");
  }
  return createClient<paths>({
    baseUrl: opts.baseUrl,
    headers: { Authorization: `Bearer ${opts.apiKey}` },
    fetch: retryingFetch(opts.fetch ?? globalThis.fetch, opts.retry ?? defaultRetry),
  });
}
