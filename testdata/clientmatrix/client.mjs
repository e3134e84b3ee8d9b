// A client built on the MCP TypeScript SDK (@modelcontextprotocol/sdk, from testdata/npm), for
// the tests that check that agentpool serve answers it. The Go twin is
// internal/clientmatrix/mcpgo (mcp-go): both run the same script and print the same reports.
//
//   node testdata/clientmatrix/client.mjs (--stdio 'COMMAND ARGS…' | --http URL)
//        --steps '[{"op":"connect"},…]' [--timeout MS]
//
// --stdio starts the server (the command line is split at spaces); --http connects to a
// streamable HTTP endpoint. Each step prints one JSON line on stdout when it ends: {op, …what it
// got} or {op, error}; the first step that fails ends the program with exit code 1. The steps
// (op and arguments) are those of mcpgo's step type. A cancelled call is aborted with an
// AbortSignal, which the SDK sends as notifications/cancelled on both transports.

import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';

// The SDK is installed in testdata/npm (npm ci --prefix testdata/npm), not next to this file.
const sdk = (p) => new URL(`../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`, import.meta.url).href;
let Client, StdioClientTransport, StreamableHTTPClientTransport, types;
try {
  ({ Client } = await import(sdk('client/index.js')));
  ({ StdioClientTransport } = await import(sdk('client/stdio.js')));
  ({ StreamableHTTPClientTransport } = await import(sdk('client/streamableHttp.js')));
  types = await import(sdk('types.js'));
} catch (err) {
  console.error(`client.mjs: cannot load @modelcontextprotocol/sdk (run npm ci --prefix testdata/npm): ${err.message}`);
  process.exit(2);
}

const { values: args } = parseArgs({
  options: {
    stdio: { type: 'string' },
    http: { type: 'string' },
    steps: { type: 'string', default: '[]' },
    timeout: { type: 'string', default: '60000' },
  },
});
const timeout = Number(args.timeout);

let client, transport;
let listed = []; // the tools of the last list_tools
let progress = [];
let last = ''; // the text of the last step
const updated = []; // URIs of notifications/resources/updated not yet awaited
let wake = () => {};

async function connect(step, report) {
  client = new Client({ name: 'ts-sdk-matrix', version: '1' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(types.CreateMessageRequestSchema, async (req) => ({
    model: 'matrix',
    role: 'assistant',
    content: { type: 'text', text: `sampled: ${req.params.messages[0]?.content?.text ?? ''}` },
  }));
  client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
    wake();
  });
  if (args.stdio) {
    const [command, ...rest] = args.stdio.split(' ').filter(Boolean);
    transport = new StdioClientTransport({ command, args: rest, env: process.env, stderr: 'inherit' });
  } else if (args.http) {
    transport = new StreamableHTTPClientTransport(new URL(args.http));
  } else {
    throw new Error('give --stdio or --http');
  }
  await client.connect(transport, { timeout });
  report.protocol_version = transport.protocolVersion; // set by the HTTP transport only
  report.server = client.getServerVersion()?.name;
  report.session = transport.sessionId;
}

async function awaitUpdated(uri, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const i = updated.indexOf(uri);
    if (i >= 0) return void updated.splice(0, i + 1);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no notifications/resources/updated for ${uri} within ${ms} ms`);
    await new Promise((resolve) => {
      wake = resolve;
      setTimeout(resolve, left);
    });
  }
}

function hasLine(path, line) {
  try {
    return readFileSync(path, 'utf8').split('\n').includes(line);
  } catch {
    return false; // not written yet
  }
}

// call calls a tool: with a progress token if asked, aborted after cancel_ms or once the file
// cancel_on.path has the line cancel_on.line ("{last}" in it stands for the text of the previous
// step) if given. The error of an aborted call is the report's text; the step fails only if the
// call returned a result.
async function call(step, report) {
  const opts = { timeout };
  progress = [];
  if (step.progress) opts.onprogress = (p) => progress.push(p.progress);
  const cancelled = step.cancel_ms || step.cancel_on;
  const timers = [];
  if (cancelled) {
    const ac = new AbortController();
    const abort = () => ac.abort('cancelled by the matrix');
    if (step.cancel_ms) timers.push(setTimeout(abort, step.cancel_ms));
    if (step.cancel_on) {
      const line = step.cancel_on.line.replaceAll('{last}', last);
      timers.push(setInterval(() => hasLine(step.cancel_on.path, line) && abort(), 10));
    }
    opts.signal = ac.signal;
  }
  let result;
  try {
    result = await client.callTool({ name: step.name, arguments: step.args ?? {} }, undefined, opts);
  } catch (err) {
    if (!cancelled) throw err;
    report.text = String(err?.message ?? err);
  } finally {
    timers.forEach(clearInterval);
    if (progress.length) report.progress = progress;
  }
  if (result && cancelled) throw new Error('the cancelled call returned a result');
  if (result) {
    report.text = result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
    if (result.isError) report.is_error = true;
  }
}

const ops = {
  connect,
  async close(step, report) {
    report.session = transport.sessionId;
    if (transport.terminateSession) await transport.terminateSession(); // DELETE over HTTP
    await client.close();
    client = undefined;
  },
  ping: () => client.ping({ timeout }),
  list_tools: async (s, r) => { r.names = listed = (await client.listTools(undefined, { timeout })).tools.map((t) => t.name); },
  call,
  // call_listed calls each tool of the last list_tools with args_by_tool[its own name, after its
  // last "__"] and reports what each answered ("error: …" for a failure or a tool error).
  async call_listed(s, r) {
    r.results = {};
    for (const name of listed) {
      const one = {};
      const i = name.lastIndexOf('__');
      try {
        await call({ name, args: s.args_by_tool?.[i < 0 ? name : name.slice(i + 2)] }, one);
        r.results[name] = one.is_error ? `error: ${one.text}` : one.text;
      } catch (err) {
        r.results[name] = `error: ${err?.message ?? err}`;
      }
    }
  },
  list_prompts: async (s, r) => { r.names = (await client.listPrompts(undefined, { timeout })).prompts.map((p) => p.name); },
  async get_prompt(s, r) {
    const res = await client.getPrompt({ name: s.name, arguments: Object.fromEntries(Object.entries(s.args ?? {}).map(([k, v]) => [k, String(v)])) }, { timeout });
    r.text = res.messages.filter((m) => m.content.type === 'text').map((m) => m.content.text).join('');
  },
  list_resources: async (s, r) => { r.names = (await client.listResources(undefined, { timeout })).resources.map((x) => x.uri); },
  read: async (s, r) => { r.text = (await client.readResource({ uri: s.uri }, { timeout })).contents.map((c) => c.text ?? '').join(''); },
  list_templates: async (s, r) => { r.names = (await client.listResourceTemplates(undefined, { timeout })).resourceTemplates.map((x) => x.uriTemplate); },
  async complete(s, r) {
    const res = await client.complete({ ref: { type: 'ref/resource', uri: s.uri }, argument: { name: s.name, value: s.value } }, { timeout });
    r.names = res.completion.values;
  },
  set_level: (s) => client.setLoggingLevel(s.level, { timeout }),
  subscribe: (s) => client.subscribeResource({ uri: s.uri }, { timeout }),
  write: (s) => writeFile(s.path, s.text),
  // await_line waits until the file at path has the line text ("{last}": the previous step's text).
  async await_line(s) {
    const line = s.text.replaceAll('{last}', last);
    const deadline = Date.now() + s.wait_ms;
    while (!hasLine(s.path, line)) {
      if (Date.now() > deadline) throw new Error(`${s.path} has no line ${JSON.stringify(line)} within ${s.wait_ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  },
  await_updated: (s) => awaitUpdated(s.uri, s.wait_ms),
};

let code = 0;
for (const step of JSON.parse(args.steps)) {
  const report = { op: step.op };
  try {
    if (!ops[step.op]) throw new Error(`unknown op ${JSON.stringify(step.op)}`);
    if (!client && !['connect', 'write'].includes(step.op)) throw new Error('not connected');
    await ops[step.op](step, report);
  } catch (err) {
    report.error = String(err?.message ?? err);
    code = 1;
  }
  console.log(JSON.stringify(report));
  last = report.text ?? '';
  if (code) break;
}
await client?.close();
process.exit(code);
