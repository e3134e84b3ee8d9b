// A client built on the MCP TypeScript SDK (@modelcontextprotocol/sdk, from testdata/npm) that
// uses agentpool serve's search mode as a client that re-lists would: it lists the tools,
// searches, waits for notifications/tools/list_changed, lists again, calls the first tool found
// by its name and then through the call tool.
//
//   node testdata/clientmatrix/search.mjs --http URL --query WORDS --args JSON [--args2 JSON]
//     [--through-first] [--pause] [--timeout MS]
//
// --args are the arguments of the call by name, --args2 (default --args) of the call through
// the call tool. --through-first calls through the call tool before calling by name. --pause
// prints the line "searched" once it has searched and re-listed, and waits for a line on stdin
// before it calls.
// It prints one JSON line: {listed, found, list_changed, relisted, direct, through} or {error}.

import { parseArgs } from 'node:util';

const sdk = (p) => new URL(`../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`, import.meta.url).href;
const { Client } = await import(sdk('client/index.js'));
const { StreamableHTTPClientTransport } = await import(sdk('client/streamableHttp.js'));
const types = await import(sdk('types.js'));

const { values: args } = parseArgs({
  options: {
    http: { type: 'string' },
    query: { type: 'string' },
    args: { type: 'string', default: '{}' },
    args2: { type: 'string' },
    'through-first': { type: 'boolean', default: false },
    pause: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '60000' },
  },
});
const timeout = Number(args.timeout);
const report = {};
let changed = 0;
let wake = () => {};

const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('') + (res.isError ? ' (isError)' : '');

try {
  const client = new Client({ name: 'ts-sdk-search', version: '1' });
  client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => {
    changed++;
    wake();
  });
  const transport = new StreamableHTTPClientTransport(new URL(args.http));
  await client.connect(transport, { timeout });
  const names = async () => (await client.listTools(undefined, { timeout })).tools.map((t) => t.name).sort();
  report.listed = await names();
  const found = JSON.parse(text(await client.callTool({ name: 'search_tools', arguments: { query: args.query, limit: 3 } }, undefined, { timeout })));
  report.found = found.tools.map((t) => t.name);
  const deadline = Date.now() + timeout;
  while (changed === 0 && Date.now() < deadline) {
    await new Promise((resolve) => {
      wake = resolve;
      setTimeout(resolve, deadline - Date.now());
    });
  }
  report.list_changed = changed;
  report.relisted = await names();
  if (args.pause) {
    console.log('searched');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    process.stdin.pause();
  }
  const first = report.found[0];
  const direct = async () => {
    report.direct = text(await client.callTool({ name: first, arguments: JSON.parse(args.args) }, undefined, { timeout }));
  };
  const through = async () => {
    report.through = text(await client.callTool({ name: 'call_tool', arguments: { name: first, arguments: JSON.parse(args.args2 ?? args.args) } }, undefined, { timeout }));
  };
  for (const call of args['through-first'] ? [through, direct] : [direct, through]) {
    await call();
  }
  await transport.terminateSession();
  await client.close();
} catch (err) {
  report.error = String(err?.stack ?? err);
}
console.log(JSON.stringify(report));
process.exit(report.error ? 1 : 0);
