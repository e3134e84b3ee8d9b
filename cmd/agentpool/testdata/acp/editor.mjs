// An editor driven by a list of steps, written with the official TypeScript SDK's client
// (ClientSideConnection of @agentclientprotocol/sdk, pinned in testdata/npm), for the acp tests
// that check what an editor is shown: tool-call cards, permission requests, plans, thoughts,
// messages.
//
// Usage: node editor.mjs CONFIG_JSON, where the config holds
//   npmDir       the folder whose node_modules holds the SDK (testdata/npm)
//   command      the agent to spawn, and args its arguments (agentpool … acp …)
//   mcpServers   the servers passed in session/new, as ACP declares them
//   log          a file the steps may wait on (a fault server's --log)
//   permissions  the option kinds picked, in order, for each session/request_permission
//                ("allow_once", "allow_always", "reject_once"); once used up, allow_once
//   steps        prompts, in order: {prompt: TEXT} or {prompt: TEXT, cancelOnLog: PREFIX},
//                which sends session/cancel once the log has a line starting with PREFIX
//
// It prints a JSON transcript on stdout: the session/new response, every session update (with
// the index of the step it came during), every permission request and the answer given, each
// prompt's response, and how the agent exited once its stdin was closed.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const cfg = JSON.parse(process.argv[2]);
const sdkEntry = createRequire(join(cfg.npmDir, "package.json")).resolve("@agentclientprotocol/sdk");
const acp = await import(pathToFileURL(sdkEntry).href);

const out = { updates: [], permissions: [], prompts: [] };
const fail = (msg) => {
  console.error("editor.mjs: " + msg);
  out.error = String(msg);
  console.log(JSON.stringify(out));
  process.exit(1);
};
const deadline = setTimeout(() => fail("scenario did not finish within 120s"), 120_000);

const child = spawn(cfg.command, cfg.args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));

let step = -1;
let waiters = [];
const waitUpdate = (pred) => new Promise((resolve) => waiters.push({ pred, resolve }));
const answers = [...(cfg.permissions ?? [])];

const client = {
  async sessionUpdate(n) {
    out.updates.push({ step, ...n.update });
    waiters = waiters.filter((w) => {
      if (!w.pred(n.update)) return true;
      w.resolve(n.update);
      return false;
    });
  },
  async requestPermission(p) {
    const kind = answers.shift() ?? "allow_once";
    const option = p.options.find((o) => o.kind === kind);
    out.permissions.push({ step, request: p, answer: option?.optionId ?? null });
    if (!option) return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  },
};

const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const conn = new acp.ClientSideConnection(() => client, stream);

async function logHas(prefix, tries = 1000) {
  for (let i = 0; i < tries; i++) {
    let text = "";
    try {
      text = readFileSync(cfg.log, "utf8");
    } catch {}
    const line = text.split("\n").find((l) => l.startsWith(prefix));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

try {
  await conn.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  const commands = waitUpdate((u) => u.sessionUpdate === "available_commands_update");
  out.newSession = await conn.newSession({ cwd: process.cwd(), mcpServers: cfg.mcpServers ?? [] });
  const sessionId = out.newSession.sessionId;
  await commands;
  for (const [i, s] of (cfg.steps ?? []).entries()) {
    step = i;
    const running = conn.prompt({ sessionId, prompt: [{ type: "text", text: s.prompt }] });
    if (s.cancelOnLog) {
      if (!(await logHas(s.cancelOnLog))) fail(`step ${i}: the log never had ${s.cancelOnLog}`);
      await conn.cancel({ sessionId });
    }
    out.prompts.push(await running);
  }
} catch (e) {
  fail(e?.stack ?? JSON.stringify(e));
}

child.stdin.end();
out.exit = await exited;
clearTimeout(deadline);
console.log(JSON.stringify(out));
