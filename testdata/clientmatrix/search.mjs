// A client built on the MCP TypeScript SDK (@modelcontextprotocol/sdk, from testdata/npm) that
// uses agentpool serve's search mode as a client that re-lists would: it lists the tools,
// searches, waits for notifications/tools/list_changed, lists again, calls the first tool found
// by its name and then through the call tool.
//
//   node testdata/clientmatrix/search.mjs --http URL --query WORDS --args JSON [--args2 JSON] [--timeout MS]
//
// --args are the arguments of the call by name, --args2 (default --args) of the call through
// the call tool.
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
  const first = report.found[0];
  const toolArgs = JSON.parse(args.args);
  report.direct = text(await client.callTool({ name: first, arguments: toolArgs }, undefined, { timeout }));
  report.through = text(await client.callTool({ name: 'call_tool', arguments: { name: first, arguments: JSON.parse(args.args2 ?? args.args) } }, undefined, { timeout }));
  await transport.terminateSession();
  await client.close();
} catch (err) {
  report.error = String(err?.stack ?? err);
}
console.log(JSON.stringify(report));
process.exit(report.error ? 1 : 0);
