// SPEC 7.4's recommended client retry behaviour, as a fetch wrapper.

/**
 * RetryPolicy: 400, 401, 403, 404, 409 and 422 are never retried; a 429 waits Retry-After
 * seconds and retries once, then backs off; 500, 502, 503, 504 and network errors back off
 * min(2^n s + jitter, maxDelayMs), at most maxRetries times. A request that may have been
 * served is repeated only when repeating cannot do it twice: GET, HEAD, PUT, DELETE, OPTIONS,
 * and a POST or PATCH whose JSON body carries an externalId (SPEC 4.7).
 */
export interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  maxDelayMs: number;
  /** Waits ms (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

export const defaultRetry: RetryPolicy = { maxRetries: 5, baseMs: 1000, maxDelayMs: 60_000 };

const serverErrors = new Set([500, 502, 503, 504]);

export function retryingFetch(send: typeof fetch, policy: RetryPolicy): (req: Request) => Promise<Response> {
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return async (req: Request) => {
    const replayable = await safeToRepeat(req);
    let backoffs = 0;
    let limitedOnce = false;
    const backoff = () => {
      const d = policy.baseMs * 2 ** backoffs++ + Math.floor(Math.random() * policy.baseMs);
      return Math.min(d, policy.maxDelayMs);
    };
    for (let attempt = 0; ; attempt++) {
      let res: Response | undefined;
      let wait: number | undefined;
      try {
        res = await send(req.clone());
      } catch (err) {
        if (!replayable || attempt >= policy.maxRetries || req.signal?.aborted) throw err;
        wait = backoff();
      }
      if (res) {
        if (res.status === 429) {
          const after = Number.parseInt(res.headers.get("Retry-After") ?? "", 10);
          wait = !limitedOnce && after >= 0 ? Math.min(after * 1000, policy.maxDelayMs) : backoff();
          limitedOnce = true;
        } else if (serverErrors.has(res.status) && replayable) {
          wait = backoff();
        } else {
          return res;
        }
        if (attempt >= policy.maxRetries) return res;
        await res.body?.cancel();
      }
      await sleep(wait ?? 0);
    }
  };
}

async function safeToRepeat(req: Request): Promise<boolean> {
  switch (req.method) {
    case "GET":
    case "HEAD":
    case "PUT":
    case "DELETE":
    case "OPTIONS":
      return true;
    case "POST":
    case "PATCH":
      try {
        const body = JSON.parse(await req.clone().text()) as { externalId?: unknown };
        return typeof body.externalId === "string" && body.externalId !== "";
      } catch {
        return false;
      }
  }
  return false;
}
