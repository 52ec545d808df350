// The Go receiver's test vectors (webhook/testdata/vectors.json), verified by this client.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { verifyWebhook, WebhookVerificationError } from "../src/index.js";

type Vector = { name: string; secret: string; body: string; timestamp: number; expectedHeaders: Record<string, string> };
const file = new URL("../../../../webhook/testdata/vectors.json", import.meta.url);
const { vectors } = JSON.parse(readFileSync(file, "utf8")) as { vectors: Vector[] };

test("there are vectors", () => assert.ok(vectors.length >= 2));

for (const v of vectors) {
  test(`verifies ${v.name}`, () => {
    verifyWebhook(v.secret, v.expectedHeaders, v.body, { standard: true, now: () => v.timestamp });
    verifyWebhook(v.secret, new Headers(v.expectedHeaders), v.body, { standard: true, now: () => v.timestamp });
  });
  test(`refuses a changed body, secret or old timestamp: ${v.name}`, () => {
    assert.throws(() => verifyWebhook(v.secret, v.expectedHeaders, v.body + " "), WebhookVerificationError);
    assert.throws(() => verifyWebhook(v.secret + "x", v.expectedHeaders, v.body), WebhookVerificationError);
    assert.throws(
      () => verifyWebhook(v.secret, v.expectedHeaders, v.body, { standard: true, now: () => v.timestamp + 301 }),
      /timestamp outside tolerance/,
    );
    const unsigned = Object.fromEntries(Object.entries(v.expectedHeaders).filter(([k]) => !k.endsWith("Signature")));
    assert.throws(() => verifyWebhook(v.secret, unsigned, v.body), /no signature header/);
  });
}
