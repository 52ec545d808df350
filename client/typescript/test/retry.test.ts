// SPEC 7.4 retries against a real HTTP server on loopback.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { retryingFetch, defaultRetry } from "../src/index.js";

async function serve(statuses: number[], headers: Record<string, string> = {}) {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let b = "";
    req.on("data", (c) => (b += c));
    req.on("end", () => {
      bodies.push(b);
      res.writeHead(statuses[Math.min(bodies.length - 1, statuses.length - 1)]!, headers);
      res.end('{"error":"x"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, bodies, close: () => new Promise((r) => server.close(r)) };
}

function recorded() {
  const waits: number[] = [];
  return { waits, send: retryingFetch(fetch, { ...defaultRetry, sleep: async (ms) => void waits.push(ms) }) };
}

test("client errors are not retried", async () => {
  for (const status of [400, 401, 403, 404, 409, 422]) {
    const s = await serve([status, 200]);
    const { waits, send } = recorded();
    const res = await send(new Request(s.url));
    assert.equal(res.status, status);
    assert.equal(s.bodies.length, 1);
    assert.deepEqual(waits, []);
    await s.close();
  }
});

test("429 waits Retry-After once, then backs off; even a POST without externalId", async () => {
  const s = await serve([429, 429, 201], { "Retry-After": "7" });
  const { waits, send } = recorded();
  const res = await send(new Request(s.url, { method: "POST", body: '{"name":"x"}' }));
  assert.equal(res.status, 201);
  assert.equal(waits[0], 7000);
  assert.ok(waits[1]! >= 1000 && waits[1]! < 2000, `second wait ${waits[1]}`);
  await s.close();
});

test("5xx on GET: five retries, 2^n s plus jitter", async () => {
  const s = await serve([503]);
  const { waits, send } = recorded();
  const res = await send(new Request(s.url));
  assert.equal(res.status, 503);
  assert.equal(s.bodies.length, 6);
  waits.forEach((w, i) => assert.ok(w >= 1000 * 2 ** i && w < 1000 * 2 ** i + 1000, `wait ${i} = ${w}`));
  await s.close();
});

test("a POST is repeated after a 5xx only with an externalId, with the same body", async () => {
  const plain = await serve([503, 202]);
  assert.equal((await recorded().send(new Request(plain.url, { method: "POST", body: "{}" }))).status, 503);
  assert.equal(plain.bodies.length, 1);
  await plain.close();
  const keyed = await serve([503, 202]);
  const body = '{"inputs":{},"externalId":"order-1"}';
  assert.equal((await recorded().send(new Request(keyed.url, { method: "POST", body }))).status, 202);
  assert.deepEqual(keyed.bodies, [body, body]);
  await keyed.close();
});
