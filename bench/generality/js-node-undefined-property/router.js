'use strict';
/**
 * A minimal HTTP-style router with middleware, used by the docs server.
 *
 * Routes are registered as patterns like `/api/:version/users/:id`; middleware runs in order and
 * may short-circuit. The self-test at the bottom replays a recorded request log (no network).
 */

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'];
const PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;
const QUOTED = /^(["'])(.*)\1$/;          // strips matching quotes from header values
const TOKEN_SPLIT = /[\s,;]+/;

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
  }
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compiles `/users/:id` into a RegExp and the list of parameter names. */
function compilePattern(pattern) {
  const names = [];
  let source = '';
  let last = 0;
  pattern.replace(PARAM, (match, name, offset) => {
    source += escapeRegExp(pattern.slice(last, offset)) + '([^/]+)';
    names.push(name);
    last = offset + match.length;
    return match;
  });
  source += escapeRegExp(pattern.slice(last));
  return { regex: new RegExp(`^${source}/?$`), names };
}

function parseQuery(search) {
  const query = Object.create(null);
  if (!search) return query;
  for (const part of search.replace(/^\?/, '').split('&')) {
    if (part === '') continue;
    const [rawKey, rawValue = ''] = part.split('=');
    const key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
    const value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    if (key in query) {
      query[key] = [].concat(query[key], value);
    } else {
      query[key] = value;
    }
  }
  return query;
}

function parseHeaders(lines) {
  const headers = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    let value = line.slice(colon + 1).trim();
    const quoted = QUOTED.exec(value);
    if (quoted) value = quoted[2];
    headers[name] = value;
  }
  return headers;
}

class Request {
  constructor(raw) {
    const [head, ...rest] = raw.split('\n');
    const [method, target] = head.split(' ');
    const q = target.indexOf('?');
    this.method = method.toUpperCase();
    this.path = q < 0 ? target : target.slice(0, q);
    this.query = parseQuery(q < 0 ? '' : target.slice(q));
    this.headers = parseHeaders(rest);
    this.params = {};
  }

  accepts(type) {
    const accept = this.headers['accept'] || '*/*';
    return accept.split(TOKEN_SPLIT).some((t) => t === '*/*' || t === type);
  }
}

class Response {
  constructor() {
    this.status = 200;
    this.headers = { 'content-type': 'text/plain; charset=utf-8' };
    this.body = '';
  }

  json(value) {
    this.headers['content-type'] = 'application/json';
    this.body = JSON.stringify(value);
    return this;
  }
}

class Router {
  constructor() {
    this.routes = [];
    this.middleware = [];
  }

  use(fn) {
    this.middleware.push(fn);
    return this;
  }

  add(method, pattern, handler) {
    if (!METHODS.includes(method)) throw new Error(`unsupported method ${method}`);
    this.routes.push({ method, pattern, handler, ...compilePattern(pattern) });
    return this;
  }

  get(pattern, handler) { return this.add('GET', pattern, handler); }
  post(pattern, handler) { return this.add('POST', pattern, handler); }

  match(req) {
    for (const route of this.routes) {
      if (route.method !== req.method && !(req.method === 'HEAD' && route.method === 'GET')) continue;
      const m = route.regex.exec(req.path);
      if (!m) continue;
      const params = {};
      route.names.forEach((name, i) => { params[name] = decodeURIComponent(m[i + 1]); });
      return { route, params };
    }
    return null;
  }

  handle(raw) {
    const req = new Request(raw);
    const res = new Response();
    try {
      for (const fn of this.middleware) {
        if (fn(req, res) === false) return res;
      }
      const found = this.match(req);
      if (!found) throw new HttpError(404, `no route for ${req.method} ${req.path}`);
      req.params = found.params;
      found.route.handler(req, res);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      res.status = err.status;
      res.body = err.message;
    }
    return res;
  }
}

// --- application --------------------------------------------------------------------------

const USERS = new Map([
  ['1', { id: 1, name: 'Ada', roles: ['admin', 'editor'], locale: 'en-GB' }],
  ['2', { id: 2, name: 'Grace', roles: ['editor'], locale: 'en-US' }],
  ['3', { id: 3, name: 'Edsger', roles: [], locale: undefined }],
]);

const LOCALES = { 'en-gb': 'Hello', 'en-us': 'Hi', 'nl-nl': 'Hallo', 'de-de': 'Hallo' };

function normaliseLocale(locale) {
  // "en_GB" and "EN-gb" both become "en-gb"
  return locale.replace('_', '-').toLowerCase();
}

function greetingFor(user, fallback) {
  const locale = normaliseLocale(user.locale || fallback);
  return `${LOCALES[locale] || 'Hello'}, ${user.name}!`;
}

const router = new Router()
  .use((req, res) => {
    res.headers['x-request-path'] = req.path;
  })
  .use((req, res) => {
    if (req.path.startsWith('/admin') && req.headers['authorization'] !== 'Bearer s3cr3t') {
      res.status = 401;
      res.body = 'unauthorised';
      return false;
    }
    return true;
  })
  .get('/api/:version/users/:id', (req, res) => {
    const user = USERS.get(req.params.id);
    if (!user) throw new HttpError(404, `no user ${req.params.id}`);
    res.json({ ...user, greeting: greetingFor(user, req.headers['accept-language']) });
  })
  .get('/api/:version/users', (req, res) => {
    const role = req.query.role;
    const list = [...USERS.values()].filter((u) => !role || u.roles.includes(role));
    res.json(list.map((u) => ({ id: u.id, name: u.name })));
  })
  .post('/api/:version/echo', (req, res) => {
    res.json({ query: req.query, headers: req.headers });
  });

const LOG = [
  'GET /api/v1/users?role=editor\naccept: application/json',
  'GET /api/v1/users/1\naccept-language: "nl_NL"',
  'GET /admin/metrics\nauthorization: Bearer nope',
  'POST /api/v2/echo?x=1&x=2&y=hello+world\ncontent-type: text/plain',
  'GET /api/v1/users/9',
  'GET /api/v1/users/3\naccept: */*',
];

for (const raw of LOG) {
  const res = router.handle(raw);
  console.log(`${raw.split('\n')[0]} -> ${res.status} ${res.body.slice(0, 60)}`);
}
