// A tour of the client against a running svc (run by the Go test client/typescript_test.go on
// the embedded stack): start an execution, approve it with a second key bound to another user,
// verify a webhook, and page through a list. SVC_BASE_URL and SVC_API_KEY (a key bound to a
// user, holding every scope, as svc dev's sandbox key) name the server.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createSvcClient, unwrap, newExternalId, verifyWebhook, eachCursor } from "../src/index.js";

const baseUrl = process.env.SVC_BASE_URL ?? "http://127.0.0.1:8080";
const svc = createSvcClient({ baseUrl, apiKey: process.env.SVC_API_KEY ?? "" });
const run = newExternalId();

// 1. A workflow that waits for an admin's approval, and a second admin with a key of their own.
const slug = `tour-${run.slice(-8)}`;
unwrap(await svc.POST("/api/workflows", {
  body: {
    slug, name: "Tour",
    definition: { nodes: [
      { id: "review", kind: "human_approval", config: { actionLabel: "Pay?", assignTo: "role:admin" }, next: { approve: "done" } },
      { id: "done", kind: "transform", config: { output: { paid: true } } },
    ] },
  },
}));
const reviewer = unwrap(await svc.POST("/api/users", { body: { email: `${run}@example.com`, role: "admin" } })).data;
const key = unwrap(await svc.POST("/api/api-keys", { body: { name: "tour reviewer", scopes: ["approvals:write", "executions:view"], actAsUserId: reviewer.id } })).data;
const approver = createSvcClient({ baseUrl, apiKey: key.key });

// 2. Start an execution; a retry with the same externalId is the same execution.
const start = { params: { path: { id: slug } }, body: { inputs: { amount: 250 }, externalId: run } };
const started = unwrap(await svc.POST("/api/workflows/{id}/executions", start));
const again = unwrap(await svc.POST("/api/workflows/{id}/executions", start));
console.log("same execution on retry:", again.data.id === started.data.id);

// 3. The second admin approves it (the starter never may); the run succeeds.
const approval = await poll(async () => {
  const page = unwrap(await approver.GET("/api/approvals", { params: { query: { executionId: started.data.id, status: "pending" } } }));
  return page.data?.[0];
});
unwrap(await approver.POST("/api/approvals/{id}/approve", { params: { path: { id: approval.id } }, body: { comment: "ok" } }));
const done = await poll(async () => {
  const e = unwrap(await svc.GET("/api/executions/{id}", { params: { path: { id: started.data.id } } })).data;
  return e.status === "succeeded" || e.status === "failed" ? e : undefined;
});
console.log("execution:", done.status);

// 4. A webhook receiver on this machine verifies what svc sends.
let received: (ok: string) => void = () => {};
const verified = new Promise<string>((r) => (received = r));
let secret = "";
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    try {
      verifyWebhook(secret, req.headers, body, { standard: true });
      received((JSON.parse(body.toString()) as { event: string }).event);
      res.writeHead(204).end();
    } catch (e) {
      received(String(e));
      res.writeHead(400).end();
    }
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
const hook = unwrap(await svc.POST("/api/webhooks", { body: { url, events: ["webhook.test"] } })).data;
secret = hook.secret;
unwrap(await svc.POST("/api/webhooks/{id}/test", { params: { path: { id: hook.id } } }));
console.log("webhook verified:", await verified);
receiver.close();

// 5. Page through the executions feed two at a time.
let seen = 0;
for await (const e of eachCursor(async (cursor) => unwrap(await svc.GET("/api/executions", { params: { query: { limit: 2, cursor, q: slug } } })))) {
  if (e.id === started.data.id) seen++;
}
console.log("listed the execution:", seen === 1);

async function poll<T>(fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("timed out");
}
