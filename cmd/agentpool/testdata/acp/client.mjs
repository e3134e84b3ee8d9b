// An editor's side of ACP for the agentpool acp test, written with the official TypeScript
// SDK's client (ClientSideConnection of @agentclientprotocol/sdk, pinned in testdata/npm).
//
// Usage: node client.mjs CONFIG_JSON, where the config holds
//   npmDir      the folder whose node_modules holds the SDK (testdata/npm)
//   command     the agent to spawn, and args its arguments (agentpool … acp …)
//   faultserver the MCP server this client passes in session/new (stdio), logging to log
//
// It runs one scenario and prints a JSON transcript on stdout for the Go test to check:
// initialize; a session with the fault server; a prompt that makes the model call
// fault__echo; a slash command taken from the advertised list (the server's greet prompt);
// a prompt that makes the model call fault__sleep, cancelled once the server has begun the
// call; then it closes the agent's stdin and records how the agent exited.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const cfg = JSON.parse(process.argv[2]);
const sdkEntry = createRequire(join(cfg.npmDir, "package.json")).resolve("@agentclientprotocol/sdk");
const acp = await import(pathToFileURL(sdkEntry).href);

const out = { updates: [] };
const fail = (msg) => {
  console.error("client.mjs: " + msg);
  out.error = String(msg);
  console.log(JSON.stringify(out));
  process.exit(1);
};
const deadline = setTimeout(() => fail("scenario did not finish within 120s"), 120_000);

const child = spawn(cfg.command, cfg.args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));

// Waiters for session updates: each is a predicate and the resolve of its promise.
let waiters = [];
const waitUpdate = (pred) => new Promise((resolve) => waiters.push({ pred, resolve }));

const client = {
  async sessionUpdate(n) {
    out.updates.push(n.update);
    waiters = waiters.filter((w) => {
      if (!w.pred(n.update)) return true;
      w.resolve(n.update);
      return false;
    });
  },
  async requestPermission(p) {
    // fault__sleep is not read-only: the user allows it.
    out.permissions = [...(out.permissions ?? []), p.toolCall.title];
    const allow = p.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  },
};

const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const conn = new acp.ClientSideConnection(() => client, stream);

// logHas waits until the fault server's log holds a line starting with prefix (or gives up).
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
  out.initialize = await conn.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  out.clientProtocolVersion = acp.PROTOCOL_VERSION;

  const commands = waitUpdate((u) => u.sessionUpdate === "available_commands_update");
  const session = await conn.newSession({
    cwd: process.cwd(),
    mcpServers: [{ name: "fault", command: cfg.faultserver, args: ["--log", cfg.log], env: [] }],
  });
  out.sessionId = session.sessionId;
  out.commands = (await commands).availableCommands;

  // 1. A prompt the model answers with a tool call.
  out.echo = await conn.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "please echo hello" }] });

  // 2. A slash command from the advertised list.
  const greet = out.commands.find((c) => c.name.endsWith("greet"));
  if (!greet) fail("no greet command advertised: " + JSON.stringify(out.commands));
  out.commandLine = `/${greet.name} Ann`;
  out.command = await conn.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: out.commandLine }] });

  // 3. A slow tool call, cancelled once the server has begun it.
  const slow = conn.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "please sleep" }] });
  out.sleepBegan = await logHas("begin ");
  await conn.cancel({ sessionId: session.sessionId });
  out.sleep = await slow;
  out.sleepCancelled = await logHas("cancelled ");
} catch (e) {
  fail(e?.stack ?? JSON.stringify(e));
}

child.stdin.end();
out.exit = await exited;
clearTimeout(deadline);
console.log(JSON.stringify(out));
