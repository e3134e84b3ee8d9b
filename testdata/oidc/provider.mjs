// A real OpenID provider (oidc-provider, from testdata/npm) for agentpool's tests of serve as an
// OAuth protected resource; internal/oidctest starts it and talks to it.
//
//   node testdata/oidc/provider.mjs [--access-token-ttl SECONDS]
//
// --access-token-ttl: the lifetime of access tokens (default 300).
//
// It listens on 127.0.0.1 on a random port and prints one JSON line on stdout once it does:
// {"issuer":"http://127.0.0.1:PORT"}. Everything else it says goes to stderr. It exits when
// its stdin closes (so a test that dies never leaves it behind) and on SIGTERM or SIGINT.
//
// What it does:
//   - dynamic client registration (open, no initial access token), loopback http redirect
//     URIs for native and web clients (a native client's loopback port may differ from the
//     registered one), PKCE S256 required of every client, the authorization code, client
//     credentials and refresh token grants: a client registered for refresh_token that asks
//     for offline_access gets a refresh token (an authorization request with offline_access
//     and no prompt gets prompt=consent added, see below);
//   - resource indicators: any http(s) URL is a resource, whose access tokens are RS256 JWTs
//     (RFC 9068, typ at+jwt) with aud the resource and scope the requested scopes among mcp
//     and agent:<name>; OIDC scopes are openid and offline_access;
//   - no login page: /interaction/UID logs in the account named by the authorization
//     request's login_hint (default alice), whose sub is that name, and grants every
//     requested scope and resource at once, so a client that follows redirects ends at the
//     redirect URI with code, state and iss;
//   - POST /admin/rotate: a new RS256 signing key (kid key-N) signs from now on; the old ones
//     stay in the JWKS, so tokens they signed still verify. POST /admin/rotate?drop=1: no new
//     key, the old ones leave the JWKS (only the signing key is left), so tokens they signed
//     no longer verify. Both answer {"kids": [...]}, the signing key's first.

import * as crypto from 'node:crypto';
import * as http from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

// oidc-provider prints notices with console.info: keep stdout for the one JSON line.
console.info = console.error;

// oidc-provider is installed in testdata/npm (npm ci --prefix testdata/npm), not next to this
// file: resolve it from there, whatever the working directory.
let Provider;
let errors;
let createMemoryAdapter;
try {
  const require = createRequire(new URL('../npm/package.json', import.meta.url));
  const main = pathToFileURL(require.resolve('oidc-provider')); // lib/index.js
  ({ default: Provider, errors } = await import(main.href));
  // The in-memory adapter, imported by path: the package has no exports map.
  ({ createMemoryAdapter } = await import(new URL('adapters/memory_adapter.js', main).href));
} catch (err) {
  console.error(`provider.mjs: cannot load oidc-provider (run npm ci --prefix testdata/npm): ${err.message}`);
  process.exit(2);
}

const { values: args } = parseArgs({ options: { 'access-token-ttl': { type: 'string', default: '300' } } });
const ttl = Number(args['access-token-ttl']);
if (!Number.isInteger(ttl) || ttl <= 0) {
  console.error(`provider.mjs: --access-token-ttl must be a positive number of seconds, not ${args['access-token-ttl']}`);
  process.exit(2);
}

const OIDC_SCOPES = ['openid', 'offline_access'];

// Signing keys, the one that signs first (oidc-provider signs with the first key of an alg).
let keyCount = 0;
function newKey() {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: `key-${++keyCount}`, alg: 'RS256', use: 'sig' };
}
let keys = [newKey()];

// Where clients, grants, sessions, interactions and tokens live: one in-memory store that every
// Provider instance shares (oidc-provider 9 gives each instance a store of its own when no
// adapter is configured, so a rotation would forget every client).
const adapter = createMemoryAdapter(15);

// Cookie signing keys, shared by every Provider instance so that a rotation in the middle of a
// login does not lose it.
const cookieKeys = [crypto.randomBytes(32).toString('base64url')];

// resourceScopes is the scope a resource server allows: mcp and any agent:<name> asked for in
// this request, or held by the code or refresh token being exchanged.
function resourceScopes(ctx) {
  const asked = [
    ctx.oidc.params?.scope,
    ctx.oidc.entities?.AuthorizationCode?.scope,
    ctx.oidc.entities?.RefreshToken?.scope,
  ].join(' ').split(' ');
  return ['mcp', ...new Set(asked.filter((s) => /^agent:.+/.test(s)))].join(' ');
}

function configuration(issuer) {
  return {
    adapter,
    jwks: { keys },
    cookies: { keys: cookieKeys },
    scopes: OIDC_SCOPES,
    responseTypes: ['code'], // no implicit flow (OAuth 2.1)
    // Every account exists; its sub is its name.
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // PKCE for every authorization code request, not only public clients' (OAuth 2.1; MCP).
    // oidc-provider 9 knows only S256.
    pkce: { required: () => true },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 24 * 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 24 * 3600,
    },
    clientBasedCORS: () => true,
    // Refresh tokens for clients that may use them and asked for offline_access (the default
    // rule, stated here because tests depend on it).
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A refresh without a resource parameter is for the resource the grant was for.
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource) => {
          if (!/^https?:\/\//.test(resource)) {
            throw new errors.InvalidTarget('resource must be an http(s) URL');
          }
          return {
            scope: resourceScopes(ctx),
            audience: resource,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  };
}

// interact is the login and consent "page": no page at all. It logs in login_hint (or alice)
// and grants what the request asks for, then sends the browser back to the authorization.
async function interact(provider, req, res) {
  const { params, grantId } = await provider.interactionDetails(req, res);
  const accountId = params.login_hint || 'alice';
  const grant = (grantId && (await provider.Grant.find(grantId)))
    || new provider.Grant({ accountId, clientId: params.client_id });
  const scopes = params.scope ? params.scope.split(' ') : [];
  grant.addOIDCScope(scopes.filter((s) => OIDC_SCOPES.includes(s)).join(' '));
  const resourceScope = scopes.filter((s) => !OIDC_SCOPES.includes(s)).join(' ');
  for (const resource of [params.resource ?? []].flat()) {
    grant.addResourceScope(resource, resourceScope);
  }
  const result = { login: { accountId }, consent: { grantId: await grant.save() } };
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

const server = http.createServer();
let current; // the current Provider and its request handler; rotation replaces them

function start() {
  const provider = new Provider(issuer(), configuration(issuer()));
  current = { provider, handle: provider.callback() };
}

// Rotation builds a new Provider with the new key set (oidc-provider takes its keys only at
// construction). It shares the adapter, so it sees everything the old one stored.
function rotate(drop) {
  keys = drop ? [keys[0]] : [newKey(), ...keys];
  start();
}

function issuer() {
  return `http://127.0.0.1:${server.address().port}`;
}

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

server.on('request', async (req, res) => {
  const url = new URL(req.url, issuer());
  const { provider, handle } = current; // the same instance for the whole request
  try {
    if (req.method === 'POST' && url.pathname === '/admin/rotate') {
      rotate(url.searchParams.get('drop') === '1');
      answer(res, 200, { kids: keys.map((k) => k.kid) });
    } else if (req.method === 'GET' && url.pathname.startsWith('/interaction/')) {
      await interact(provider, req, res);
    } else {
      // OpenID Connect ignores offline_access in a request without prompt=consent (Core 1.0
      // section 11), and oidc-provider then issues no refresh token; MCP clients such as the
      // go-sdk's ask for offline_access without a prompt. Ask for consent for them: it is
      // given at once anyway.
      if (req.method === 'GET' && url.pathname === '/auth' && !url.searchParams.has('prompt')
        && url.searchParams.get('scope')?.split(' ').includes('offline_access')) {
        url.searchParams.set('prompt', 'consent');
        req.url = url.pathname + url.search;
      }
      await handle(req, res);
    }
  } catch (err) {
    console.error(`provider.mjs: ${req.method} ${url.pathname}: ${err.stack || err}`);
    if (!res.headersSent) answer(res, 500, { error: 'server_error', error_description: String(err.message || err) });
  }
});

server.listen(0, '127.0.0.1', () => {
  start();
  process.stdout.write(`${JSON.stringify({ issuer: issuer() })}\n`);
});

// Exit when whoever started us goes away (stdin closes) or asks us to.
function exit() {
  server.closeAllConnections();
  server.close();
  process.exit(0);
}
process.stdin.on('end', exit);
process.stdin.on('close', exit);
process.stdin.resume();
process.on('SIGTERM', exit);
process.on('SIGINT', exit);
