/**
 * The interactive reference page of /api/v1/docs: one self-contained HTML page (no script,
 * style or font from anywhere else) that fetches openapi.json beside it, lists every operation
 * by tag with its parameters, body and responses, shows the schemas, and sends a request from a
 * "Try it" form with the API key the reader types (kept in this tab only).
 */
export function docsPage(specUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lead Intelligence API reference</title>
<style>
:root { --fg:#1d2330; --muted:#5b6478; --line:#e3e6ee; --bg:#f7f8fb; --accent:#3451b2; }
* { box-sizing:border-box; }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); display:flex; min-height:100vh; }
nav { width:290px; flex:none; border-right:1px solid var(--line); background:var(--bg); padding:16px; position:sticky; top:0; height:100vh; overflow:auto; }
nav h2 { font-size:12px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:18px 0 6px; }
nav a { display:block; color:var(--fg); text-decoration:none; padding:2px 0; font-size:13px; }
nav a:hover { color:var(--accent); }
nav input { width:100%; padding:6px 8px; border:1px solid var(--line); border-radius:6px; }
main { flex:1; padding:24px 40px; max-width:1100px; }
h1 { margin-top:0; }
section.op { border:1px solid var(--line); border-radius:10px; margin:18px 0; padding:16px 20px; }
.m { display:inline-block; min-width:64px; text-align:center; font:600 12px monospace; padding:3px 6px; border-radius:5px; color:#fff; margin-right:8px; }
.GET{background:#2f7d4f}.POST{background:#3451b2}.PUT{background:#9a6700}.PATCH{background:#8250df}.DELETE{background:#c0392b}
code, pre { font-family: ui-monospace,SFMono-Regular,Menlo,monospace; font-size:13px; }
pre { background:var(--bg); border:1px solid var(--line); border-radius:6px; padding:10px; overflow:auto; max-height:420px; }
table { border-collapse:collapse; width:100%; margin:8px 0; }
td, th { border-bottom:1px solid var(--line); padding:5px 8px; text-align:left; vertical-align:top; font-size:13px; }
.muted { color:var(--muted); }
details { margin:6px 0; }
summary { cursor:pointer; }
.try input, .try textarea { width:100%; font:13px ui-monospace,monospace; padding:5px; border:1px solid var(--line); border-radius:5px; }
.try textarea { min-height:110px; }
button { background:var(--accent); color:#fff; border:0; border-radius:6px; padding:6px 14px; cursor:pointer; }
.desc p { margin:6px 0; }
</style>
</head>
<body>
<nav>
  <strong>Lead Intelligence API</strong>
  <p class="muted" style="font-size:12px">Generated from the gateway's code. <a href="${specUrl}" style="display:inline">openapi.json</a> · <a href="postman_collection.json" style="display:inline">Postman collection</a> · <a href="docs/errors" style="display:inline">errors</a> · <a href="#webhooks" style="display:inline">webhooks</a></p>
  <label class="muted" style="font-size:12px">API key for “Try it” (kept in this tab)</label>
  <input id="apikey" type="password" placeholder="svc_test_…" autocomplete="off">
  <input id="filter" type="search" placeholder="Filter operations" style="margin-top:8px">
  <div id="toc"></div>
</nav>
<main id="main"><p>Loading the API description…</p></main>
<script>
(function () {
  'use strict';
  var specUrl = ${JSON.stringify(specUrl)};
  var esc = function (s) { return String(s == null ? '' : s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; }); };
  var md = function (s) {
    return esc(s).split(/\\n\\n+/).map(function (p) {
      return '<p>' + p.replace(/\\*\\*([^*]+)\\*\\*/g, '<strong>$1</strong>').replace(/\`([^\`]+)\`/g, '<code>$1</code>').replace(/\\[([^\\]]+)\\]\\((https?:\\/\\/[^)\\s"]+)\\)/g, '<a href="$2">$1</a>') + '</p>';
    }).join('');
  };
  var keyInput = document.getElementById('apikey');
  keyInput.value = sessionStorage.getItem('apikey') || '';
  keyInput.addEventListener('input', function () { sessionStorage.setItem('apikey', keyInput.value); });

  fetch(specUrl).then(function (r) { return r.json(); }).then(render).catch(function (e) {
    document.getElementById('main').innerHTML = '<p>Could not load ' + esc(specUrl) + ': ' + esc(e.message) + '</p>';
  });

  function resolve(doc, node) {
    var seen = 0;
    while (node && node.$ref && seen++ < 20) {
      node = node.$ref.replace(/^#\\//, '').split('/').reduce(function (o, k) { return o && o[k]; }, doc);
    }
    return node || {};
  }
  function typeOf(doc, s) {
    if (!s) return '';
    if (s.$ref) return '<a href="#schema-' + esc(s.$ref.split('/').pop()) + '">' + esc(s.$ref.split('/').pop()) + '</a>';
    if (s.oneOf) return s.oneOf.map(function (x) { return typeOf(doc, x); }).join(' | ');
    if (s.allOf) return s.allOf.map(function (x) { return typeOf(doc, x); }).join(' & ');
    var t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type || 'any');
    if (s.type === 'array' || (Array.isArray(s.type) && s.type.indexOf('array') >= 0)) t = 'array of ' + typeOf(doc, s.items);
    if (s.format) t += ' (' + esc(s.format) + ')';
    if (s.const !== undefined) t += ' = ' + esc(JSON.stringify(s.const));
    return esc(t);
  }
  function rules(s) {
    var out = [];
    if (s.enum) out.push('one of ' + s.enum.map(function (v) { return '<code>' + esc(JSON.stringify(v)) + '</code>'; }).join(', '));
    ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'pattern', 'default'].forEach(function (k) {
      if (s[k] !== undefined) out.push(k + ' ' + esc(s[k]));
    });
    return out.join('; ');
  }
  function schemaTable(doc, schema) {
    var s = resolve(doc, schema);
    if (s.allOf) return s.allOf.map(function (x) { return schemaTable(doc, x); }).join('');
    if (!s.properties) return '<p>' + typeOf(doc, schema) + '</p>';
    var req = s.required || [];
    return '<table><tr><th>Field</th><th>Type</th><th>Rules</th></tr>' + Object.keys(s.properties).map(function (name) {
      var p = s.properties[name];
      return '<tr><td><code>' + esc(name) + '</code>' + (req.indexOf(name) >= 0 ? ' <span class="muted">required</span>' : '') + '</td><td>' +
        typeOf(doc, p) + '</td><td>' + rules(resolve(doc, p)) + (p.description ? '<div class="muted">' + md(p.description) + '</div>' : '') + '</td></tr>';
    }).join('') + '</table>';
  }
  function example(doc, schema, depth) {
    var s = resolve(doc, schema);
    if ((depth || 0) > 4) return null;
    if (s.examples) return s.examples[0];
    if (s.example !== undefined) return s.example;
    if (s.const !== undefined) return s.const;
    if (s.enum) return s.enum[0];
    if (s.allOf) return s.allOf.reduce(function (o, x) { return Object.assign(o, example(doc, x, depth)); }, {});
    if (s.oneOf) return example(doc, s.oneOf[0], depth);
    var t = Array.isArray(s.type) ? s.type[0] : s.type;
    if (t === 'object' || s.properties) {
      var o = {};
      Object.keys(s.properties || {}).forEach(function (k) { if ((s.required || []).indexOf(k) >= 0 || depth === undefined) o[k] = example(doc, s.properties[k], (depth || 0) + 1); });
      return o;
    }
    if (t === 'array') return [example(doc, s.items, (depth || 0) + 1)];
    if (t === 'integer' || t === 'number') return s.minimum || 0;
    if (t === 'boolean') return false;
    if (s.format === 'date-time') return new Date().toISOString();
    if (s.format === 'email') return 'ada@example.com';
    if (s.format === 'uri') return 'https://example.com';
    return 'string';
  }

  function render(doc) {
    var main = document.getElementById('main');
    var toc = document.getElementById('toc');
    // "Try it" calls the gateway serving the page: the first server without variables
    var server = ((doc.servers || []).filter(function (s) { return s.url.indexOf('{') < 0; })[0] || { url: '' }).url;
    var byTag = {};
    Object.keys(doc.paths).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method];
        var tag = (op.tags && op.tags[0]) || 'other';
        (byTag[tag] = byTag[tag] || []).push({ path: path, method: method.toUpperCase(), op: op });
      });
    });
    var html = '<h1>' + esc(doc.info.title) + ' <span class="muted" style="font-size:16px">version ' + esc(doc.info.version) + '</span></h1><div class="desc">' + md(doc.info.description || '') + '</div>';
    var nav = '';
    (doc.tags || []).map(function (t) { return t.name; }).concat(Object.keys(byTag)).filter(function (t, i, a) { return a.indexOf(t) === i && byTag[t]; }).forEach(function (tag) {
      var tagDoc = (doc.tags || []).filter(function (t) { return t.name === tag; })[0] || {};
      nav += '<h2>' + esc(tag) + '</h2>';
      html += '<h2 id="tag-' + esc(tag) + '">' + esc(tag) + '</h2>' + (tagDoc.description ? '<p class="muted">' + esc(tagDoc.description) + '</p>' : '');
      byTag[tag].forEach(function (e) {
        var id = e.op.operationId;
        nav += '<a href="#' + esc(id) + '" data-text="' + esc((e.method + ' ' + e.path + ' ' + e.op.summary).toLowerCase()) + '"><span class="m ' + e.method + '" style="min-width:52px;font-size:10px">' + e.method + '</span>' + esc(e.path) + '</a>';
        html += renderOp(doc, server, e, id);
      });
    });
    // webhooks: what the API sends to an endpoint, one section per event type with its body and example
    var hooks = Object.keys(doc.webhooks || {});
    if (hooks.length) {
      nav += '<h2>Webhooks</h2>';
      html += '<h2 id="webhooks">Webhooks</h2>';
      hooks.forEach(function (name) {
        var op = doc.webhooks[name].post;
        var media = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
        var examples = (media && media.examples) || {};
        var sample = examples[Object.keys(examples)[0]];
        nav += '<a href="#' + esc(op.operationId) + '" data-text="' + esc(('webhook ' + name + ' ' + op.summary).toLowerCase()) + '"><span class="m POST" style="min-width:52px;font-size:10px">EVENT</span>' + esc(name) + '</a>';
        html += '<section class="op" id="' + esc(op.operationId) + '"><h3><span class="m POST">POST</span><code>' + esc(name) + '</code></h3>' +
          '<p><strong>' + esc(op.summary || '') + '</strong></p>' + (op.description ? '<div class="desc">' + md(op.description) + '</div>' : '') +
          (media ? '<h4>Body</h4>' + schemaTable(doc, media.schema) : '') +
          (sample ? '<h4>Example</h4><pre>' + esc(JSON.stringify(sample.value, null, 2)) + '</pre>' : '') + '</section>';
      });
    }
    html += '<h2 id="schemas">Schemas</h2>' + Object.keys((doc.components && doc.components.schemas) || {}).map(function (name) {
      var s = doc.components.schemas[name];
      return '<details id="schema-' + esc(name) + '"><summary><code>' + esc(name) + '</code> <span class="muted">' + esc(s.description || '') + '</span></summary>' + schemaTable(doc, s) + '</details>';
    }).join('');
    nav += '<h2>Reference</h2><a href="#schemas">Schemas</a>';
    main.innerHTML = html;
    toc.innerHTML = nav;
    document.getElementById('filter').addEventListener('input', function (ev) {
      var q = ev.target.value.toLowerCase();
      Array.prototype.forEach.call(toc.querySelectorAll('a[data-text]'), function (a) { a.style.display = a.getAttribute('data-text').indexOf(q) >= 0 ? '' : 'none'; });
    });
    Array.prototype.forEach.call(main.querySelectorAll('form.try'), function (form) { form.addEventListener('submit', function (ev) { ev.preventDefault(); send(doc, server, form); }); });
    if (location.hash) { var target = document.getElementById(location.hash.slice(1)); if (target) target.scrollIntoView(); }
  }

  function renderOp(doc, server, e, id) {
    var op = e.op;
    var params = (op.parameters || []).map(function (p) { return resolve(doc, p); });
    var out = '<section class="op" id="' + esc(id) + '"><h3><span class="m ' + e.method + '">' + e.method + '</span><code>' + esc(e.path) + '</code></h3>';
    out += '<p><strong>' + esc(op.summary || '') + '</strong></p>' + (op.description ? '<div class="desc">' + md(op.description) + '</div>' : '');
    if (op.security && op.security.length === 0) out += '<p class="muted">No API key needed.</p>';
    if (params.length) {
      out += '<h4>Parameters</h4><table><tr><th>Name</th><th>In</th><th>Type</th><th>Rules</th></tr>' + params.map(function (p) {
        return '<tr><td><code>' + esc(p.name) + '</code>' + (p.required ? ' <span class="muted">required</span>' : '') + '</td><td>' + esc(p.in) + '</td><td>' + typeOf(doc, p.schema) + '</td><td>' + rules(resolve(doc, p.schema || {})) + (p.description ? '<div class="muted">' + md(p.description) + '</div>' : '') + '</td></tr>';
      }).join('') + '</table>';
    }
    var body = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
    if (body) out += '<h4>Body</h4>' + schemaTable(doc, body.schema);
    out += '<h4>Responses</h4><table>' + Object.keys(op.responses).map(function (status) {
      var r = resolve(doc, op.responses[status]);
      var json = r.content && r.content['application/json'];
      return '<tr><td><code>' + esc(status) + '</code></td><td>' + md(r.description || '') + '</td><td>' + (json ? typeOf(doc, json.schema) : (r.content ? esc(Object.keys(r.content).join(', ')) : '')) + '</td></tr>';
    }).join('') + '</table>';
    out += '<details><summary>Try it</summary><form class="try" data-method="' + e.method + '" data-path="' + esc(e.path) + '">';
    params.filter(function (p) { return p.in === 'path' || p.in === 'query' || p.in === 'header'; }).forEach(function (p) {
      var deep = p.style === 'deepObject';
      out += '<label>' + esc(p.name) + ' <span class="muted">(' + esc(p.in) + (deep ? ', as key=value pairs separated by &amp;' : '') + ')</span></label><input data-in="' + esc(p.in) + '"' +
        (deep ? ' data-deep="1" placeholder="industry=software&amp;country=DE"' : '') + ' name="' + esc(p.name) + '"' + (p.required ? ' required' : '') + '>';
    });
    if (body) out += '<label>Body (JSON)</label><textarea name="__body">' + esc(JSON.stringify(example(doc, body.schema, 0), null, 2)) + '</textarea>';
    out += '<p><button type="submit">Send</button></p><pre class="result" hidden></pre></form></details></section>';
    return out;
  }

  function send(doc, server, form) {
    var path = form.getAttribute('data-path');
    var query = [];
    var headers = { Accept: 'application/json' };
    var key = keyInput.value.trim();
    if (key) headers.Authorization = 'Bearer ' + key;
    Array.prototype.forEach.call(form.querySelectorAll('input[data-in]'), function (input) {
      if (!input.value) return;
      var where = input.getAttribute('data-in');
      if (where === 'path') path = path.replace('{' + input.name + '}', encodeURIComponent(input.value));
      else if (where === 'query' && input.getAttribute('data-deep')) {
        input.value.split('&').forEach(function (pair) {
          var at = pair.indexOf('=');
          if (at > 0) query.push(encodeURIComponent(input.name + '[' + pair.slice(0, at).trim() + ']') + '=' + encodeURIComponent(pair.slice(at + 1).trim()));
        });
      } else if (where === 'query') query.push(encodeURIComponent(input.name) + '=' + encodeURIComponent(input.value));
      else headers[input.name] = input.value;
    });
    var init = { method: form.getAttribute('data-method'), headers: headers };
    var bodyField = form.querySelector('textarea[name="__body"]');
    if (bodyField) { headers['Content-Type'] = 'application/json'; init.body = bodyField.value; }
    var out = form.querySelector('.result');
    out.hidden = false;
    out.textContent = 'Sending…';
    fetch(server + path + (query.length ? '?' + query.join('&') : ''), init).then(function (res) {
      return res.text().then(function (text) {
        var shown = ['request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'idempotent-replayed', 'content-type']
          .filter(function (h) { return res.headers.get(h) !== null; }).map(function (h) { return h + ': ' + res.headers.get(h); }).join('\\n');
        var pretty = text;
        try { pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON */ }
        out.textContent = res.status + ' ' + res.statusText + '\\n' + shown + '\\n\\n' + pretty;
      });
    }).catch(function (e) { out.textContent = 'Request failed: ' + e.message; });
  }
})();
</script>
</body>
</html>
`;
}
