import { randomBytes } from "node:crypto";

/** SvcError is a failure envelope (SPEC 2.6) with its status. */
export class SvcError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: Record<string, string[]> = {},
    readonly bucket?: string,
    readonly limit?: number,
  ) {
    super(`svc: ${status} ${message}`);
    this.name = "SvcError";
  }
}

type Envelope = { error?: string; bucket?: string; limit?: number; details?: { fieldErrors?: Record<string, string[]> } };

/** unwrap returns an openapi-fetch result's data, or throws its failure as an SvcError. */
export function unwrap<D>(result: { data?: D; error?: unknown; response: Response }): D {
  if (result.response.ok && result.data !== undefined) return result.data;
  const e = (result.error ?? {}) as Envelope;
  throw new SvcError(result.response.status, e.error ?? result.response.statusText, e.details?.fieldErrors ?? {}, e.bucket, e.limit);
}

/** newExternalId returns a fresh externalId: reuse it for every retry of the same POST. */
export function newExternalId(): string {
  return "ts-" + randomBytes(16).toString("hex");
}
