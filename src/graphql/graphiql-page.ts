import { createHash } from 'node:crypto';

/*
 * GET /graphiql: a GraphQL console in one page, without a token and without any script from elsewhere. It
 * asks for a bearer token and a project key (kept in the tab's sessionStorage only), sends the query with
 * `Authorization: Bearer …` to POST /{projectKey}/graphql, and lists the schema's types from introspection.
 */

const SCRIPT = `
const $ = (id) => document.getElementById(id);
for (const id of ['token', 'project']) { $(id).value = sessionStorage.getItem('graphiql.' + id) || ''; }
$('query').value = sessionStorage.getItem('graphiql.query') || '{\\n  resources(limit: 5) {\\n    total\\n    results { id key version versions(limit: 1) { results { version types } } }\\n  }\\n}';
async function send(body) {
  for (const id of ['token', 'project']) sessionStorage.setItem('graphiql.' + id, $(id).value.trim());
  const project = $('project').value.trim();
  const token = $('token').value.trim();
  if (!project || !token) { $('result').textContent = 'Enter a project key and a bearer token (POST /oauth/token) first.'; return undefined; }
  const res = await fetch('/' + encodeURIComponent(project) + '/graphql', {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token }, body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}
$('run').addEventListener('click', async () => {
  sessionStorage.setItem('graphiql.query', $('query').value);
  let variables;
  try { variables = $('variables').value.trim() ? JSON.parse($('variables').value) : undefined; } catch (e) { $('result').textContent = 'Variables: ' + e.message; return; }
  const answer = await send({ query: $('query').value, variables });
  if (answer) $('result').textContent = 'HTTP ' + answer.status + '\\n' + answer.text;
});
$('schema').addEventListener('click', async () => {
  const answer = await send({ query: '{ __schema { types { name kind fields { name type { name kind ofType { name kind ofType { name kind ofType { name } } } } } inputFields { name type { name kind ofType { name kind ofType { name } } } } } } }' });
  if (!answer) return;
  const json = JSON.parse(answer.text);
  if (!json.data) { $('result').textContent = answer.text; return; }
  const name = (t) => t.kind === 'NON_NULL' ? name(t.ofType) + '!' : t.kind === 'LIST' ? '[' + name(t.ofType) + ']' : t.name;
  $('result').textContent = json.data.__schema.types.filter((t) => !t.name.startsWith('__') && (t.fields || t.inputFields))
    .map((t) => (t.inputFields ? 'input ' : 'type ') + t.name + ' {\\n' + (t.fields || t.inputFields).map((f) => '  ' + f.name + ': ' + name(f.type)).join('\\n') + '\\n}').join('\\n\\n');
});
`;

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;display:flex;flex-direction:column;height:100vh}
header{display:flex;gap:.5em;padding:.5em;background:#e10098;color:#fff;align-items:center;flex-wrap:wrap}
header input{padding:.3em}main{display:flex;flex:1;min-height:0}section{flex:1;display:flex;flex-direction:column;padding:.5em;min-width:0}
textarea,pre{font-family:ui-monospace,monospace;font-size:13px;flex:1;margin:0;padding:.5em;border:1px solid #ccc;overflow:auto}
#variables{flex:0 0 6em;margin-top:.5em}button{padding:.3em 1em}`;

/** The page's policy: its own inline script and style only, and requests to this server. */
export const GRAPHIQL_POLICY = [
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`,
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const GRAPHIQL_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphQL console</title><style>${STYLE}</style></head>
<body><header><strong>GraphQL console</strong>
<label>Project key <input id="project" size="14" autocomplete="off"></label>
<label>Bearer token <input id="token" type="password" size="40" autocomplete="off" placeholder="access_token from POST /oauth/token"></label>
<button id="run">Run</button><button id="schema">Schema</button></header>
<main><section><textarea id="query" spellcheck="false" aria-label="Query"></textarea>
<textarea id="variables" spellcheck="false" placeholder='Variables (JSON), e.g. {"id": "…"}' aria-label="Variables"></textarea></section>
<section><pre id="result" aria-live="polite"></pre></section></main>
<script>${SCRIPT}</script></body></html>`;
