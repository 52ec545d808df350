// Webhook verification (SPEC 6.3), the same rules as the Go receiver package webhook/ and
// checked against its test vectors (webhook/testdata/vectors.json).
import { createHmac, timingSafeEqual } from "node:crypto";

/** The product header prefixes accepted beside the unified X-Service- one (webhook.ProductPrefixes). */
export const productPrefixes = ["X-Orch-", "X-DocInt-", "X-Identity-", "X-BankStatement-"];

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(`webhook verification failed: ${message}`);
    this.name = "WebhookVerificationError";
  }
}

export interface VerifyOptions {
  /** Also require the Standard Webhooks signature, its timestamp within toleranceSec of now. */
  standard?: boolean;
  toleranceSec?: number;
  /** Seconds since the epoch (tests). */
  now?: () => number;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function values(h: HeaderBag, name: string): string[] {
  if (h instanceof Headers) {
    const v = h.get(name);
    return v === null ? [] : v.split(/,\s*(?=sha256=)/);
  }
  const key = Object.keys(h).find((k) => k.toLowerCase() === name.toLowerCase());
  const v = key === undefined ? undefined : h[key];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * verifyWebhook checks that body (the raw request body) was signed with secret: every
 * X-Service-Signature and product-prefixed signature present must equal sha256=<hex HMAC>,
 * and at least one must be present. Call it before parsing the body; it throws on failure.
 */
export function verifyWebhook(secret: string, headers: HeaderBag, body: string | Uint8Array, opts: VerifyOptions = {}): void {
  const raw = typeof body === "string" ? Buffer.from(body) : Buffer.from(body);
  const want = "sha256=" + createHmac("sha256", secret).update(raw).digest("hex");
  let found = 0;
  for (const prefix of ["X-Service-", ...productPrefixes]) {
    for (const v of values(headers, prefix + "Signature")) {
      found++;
      if (!v.startsWith("sha256=")) throw new WebhookVerificationError(`${prefix}Signature: signature scheme is not sha256`);
      if (!same(v, want)) throw new WebhookVerificationError(`${prefix}Signature: signature mismatch`);
    }
  }
  if (found === 0) throw new WebhookVerificationError("no signature header");
  if (!opts.standard) return;
  const id = values(headers, "webhook-id")[0];
  const ts = values(headers, "webhook-timestamp")[0] ?? "";
  if (!id) throw new WebhookVerificationError("webhook-id: no signature header");
  if (!/^\d+$/.test(ts)) throw new WebhookVerificationError("webhook-timestamp is not Unix seconds");
  const now = opts.now ? opts.now() : Math.floor(Date.now() / 1000);
  const tol = opts.toleranceSec ?? 300;
  if (Math.abs(Number(ts) - now) > tol) throw new WebhookVerificationError("timestamp outside tolerance");
  const std = "v1," + createHmac("sha256", secret).update(`${id}.${ts}.`).update(raw).digest("base64");
  const sigs = values(headers, "webhook-signature").flatMap((v) => v.split(/\s+/));
  if (!sigs.some((s) => same(s, std))) throw new WebhookVerificationError("webhook-signature: signature mismatch");
}
