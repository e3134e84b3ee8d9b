// A client built on the MCP TypeScript SDK (@modelcontextprotocol/sdk, from testdata/npm), for
// the tests that check that agentpool serve answers it. The Go twin is
// internal/clientmatrix/mcpgo (mcp-go); both print the same report.
//
//   node testdata/clientmatrix/client.mjs (--stdio 'COMMAND ARGS…' | --http URL)
//        [--call TOOL [--args JSON]] [--timeout MS]
//
// --stdio starts the server (the command line is split at spaces); --http connects to a
// streamable HTTP endpoint. It runs initialize, tools/list and, with --call, one tools/call,
// and prints one JSON line on stdout: {protocol_version, server, tools, call_text,
// call_is_error} or, when a step failed, {step, error} and exit code 1.

import { parseArgs } from 'node:util';

// The SDK is installed in testdata/npm (npm ci --prefix testdata/npm), not next to this file.
const sdk = (p) => new URL(`../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`, import.meta.url).href;
let Client, StdioClientTransport, StreamableHTTPClientTransport;
try {
  ({ Client } = await import(sdk('client/index.js')));
  ({ StdioClientTransport } = await import(sdk('client/stdio.js')));
  ({ StreamableHTTPClientTransport } = await import(sdk('client/streamableHttp.js')));
} catch (err) {
  console.error(`client.mjs: cannot load @modelcontextprotocol/sdk (run npm ci --prefix testdata/npm): ${err.message}`);
  process.exit(2);
}

const { values: args } = parseArgs({
  options: {
    stdio: { type: 'string' },
    http: { type: 'string' },
    call: { type: 'string' },
    args: { type: 'string', default: '{}' },
    timeout: { type: 'string', default: '60000' },
  },
});

const report = {};
let step = 'connect';
const timer = setTimeout(() => {
  console.log(JSON.stringify({ ...report, step, error: `timed out after ${args.timeout} ms` }));
  process.exit(1);
}, Number(args.timeout));

const client = new Client({ name: 'ts-sdk-matrix', version: '1' });
try {
  let transport;
  if (args.stdio) {
    const [command, ...rest] = args.stdio.split(' ').filter(Boolean);
    transport = new StdioClientTransport({ command, args: rest, env: process.env, stderr: 'inherit' });
  } else if (args.http) {
    transport = new StreamableHTTPClientTransport(new URL(args.http));
  } else {
    throw new Error('give --stdio or --http');
  }
  step = 'initialize';
  await client.connect(transport);
  report.protocol_version = transport.protocolVersion; // set by the HTTP transport only
  report.server = client.getServerVersion()?.name;
  step = 'tools/list';
  const tools = await client.listTools();
  report.tools = tools.tools.map((t) => t.name);
  if (args.call) {
    step = 'tools/call';
    const res = await client.callTool({ name: args.call, arguments: JSON.parse(args.args) });
    report.call_text = res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
    if (res.isError) report.call_is_error = true;
  }
  console.log(JSON.stringify(report));
  await client.close();
  clearTimeout(timer);
  process.exit(0);
} catch (err) {
  console.log(JSON.stringify({ ...report, step, error: String(err?.message ?? err) }));
  process.exit(1);
}
