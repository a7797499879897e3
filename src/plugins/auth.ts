import fp from 'fastify-plugin';
import basicAuth from '@fastify/basic-auth';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { UserStore, type User } from '../db/users.js';
import { FailureLimiter } from '../auth/failure-limiter.js';
import { VerifiedLogins } from '../auth/verified-logins.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { ApiError, sendApiError } from '../http-errors.js';

/**
 * A route hook that either lets the request through (setting `request.user` when it logged in)
 * or answers it. Use it as `onRequest` (it also works as preValidation or preHandler): then an
 * anonymous caller is refused before its body is read or validated. Called from another hook,
 * `reply.sent` says whether it refused: the reply it returns is a thenable, which `await` unwraps
 * to undefined.
 */
export type AuthCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;

declare module 'fastify' {
  interface FastifyInstance {
    userStore: UserStore;
    loginLimiter: FailureLimiter;
    /** any logged user (HTTP Basic): 401 without or with wrong credentials, 429 after repeated failures */
    requireUser: AuthCheck;
    /** a logged user of group `admin`; 403 for other users */
    requireAdmin: AuthCheck;
    /** job submission and job files: a login as `AUTH_JOBS` says; credentials sent are always checked */
    requireJobAccess: AuthCheck;
    /** state-changing public routes: refuses a browser request sent by another site (403 crossSiteRequest) */
    refuseCrossSite: AuthCheck;
    /** whether job submission and job files need a login now */
    jobsNeedLogin(): boolean;
    /** signed links to one job's files, for browsers (their links cannot carry Basic credentials) */
    jobTickets: JobTickets;
  }
  interface FastifyRequest {
    /** the logged user, once a check above let the request through with credentials or a ticket */
    user: User | null;
    /** the request logged in with a job ticket, not with credentials: it gets no new ticket */
    viaTicket: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a state-changing request was sent by a page of another site. Browsers attach cached
 * Basic credentials to cross-site form posts, and the admin routes accept form bodies: such a
 * request must not act with the administrator's rights. Scripts (curl) send neither header.
 */
export function isCrossSite(request: FastifyRequest, baseUrl: string): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    const host = new URL(origin).host;
    return host !== request.headers.host && host !== new URL(baseUrl).host;
  } catch {
    return true; // `Origin: null` (sandboxed or privacy-restricted page)
  }
}

/**
 * Who may read a job's files: administrators, the user who submitted it, and, for a job
 * submitted without a login, whoever passes `requireJobAccess` (the job id is a random UUID).
 */
export function mayAccessJob(user: User | null, owner: number | null | undefined): boolean {
  if (user?.group === 'admin') return true;
  return owner == null || user?.id === owner;
}

/** How long a job ticket opens the job's files. */
export const TICKET_TTL_MS = 6 * 3600_000;

/**
 * Tickets: `?ticket=` on a GET of a job's files stands for the login of the account it was issued
 * to (by a request that logged in with credentials), for that job only and for a few hours. A
 * page keeps its password in memory and cannot put it in a link (a download, the HTML report); it
 * puts a ticket there instead. The key is drawn at start: a restart ends every ticket. A ticket
 * names its account by an opaque subject (the account's id, not its address: a link passed on or
 * logged by a proxy does not say whose it is), and its MAC also covers the account's stamp (its
 * current password hash, see `stampOf`): a new password, set by its user or by an administrator,
 * or the account's deletion ends its tickets, as it ends the old password.
 */
export class JobTickets {
  private readonly key = randomBytes(32);

  /** `stampOf(subject)`: a value that changes with the account's password; undefined without such an account. */
  constructor(
    private readonly stampOf: (subject: string) => string | undefined,
    private readonly ttlMs = TICKET_TTL_MS,
  ) {}

  private mac(jobId: string, expires: string, subject: string, stamp: string): string {
    // jobId, expires and the encoded subject hold no `.`: the fields cannot be shifted into one another.
    return createHmac('sha256', this.key).update(`${jobId}.${expires}.${subject}.${stamp}`).digest('base64url');
  }

  /** The stamp a ticket of `subject` is bound to ('' for an anonymous job), or undefined when the account is gone. */
  private stamp(subject: string | null): string | undefined {
    return subject === null ? '' : this.stampOf(subject);
  }

  /** A ticket for `subject`'s login (null: an anonymous job); undefined when there is no such account. */
  issue(jobId: string, subject: string | null, now = Date.now()): string | undefined {
    const stamp = this.stamp(subject);
    if (stamp === undefined) return undefined;
    const expires = String(Math.floor((now + this.ttlMs) / 1000));
    const encoded = Buffer.from(subject ?? '').toString('base64url');
    return `${expires}.${encoded}.${this.mac(jobId, expires, encoded, stamp)}`;
  }

  /** The subject a valid ticket of this job stands for (null: issued for an anonymous job), or undefined. */
  check(ticket: string, jobId: string, now = Date.now()): { subject: string | null } | undefined {
    const [expires, encoded, mac, extra] = ticket.split('.');
    if (extra !== undefined || !expires || encoded === undefined || !mac || !/^[0-9]+$/.test(expires)) return undefined;
    if (Number(expires) * 1000 < now) return undefined;
    const decoded = Buffer.from(encoded, 'base64url').toString('utf8');
    const subject = decoded === '' ? null : decoded;
    const stamp = this.stamp(subject);
    if (stamp === undefined) return undefined;
    const wanted = Buffer.from(this.mac(jobId, expires, encoded, stamp));
    const given = Buffer.from(mac);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return undefined;
    return { subject };
  }
}

/**
 * Accounts and access checks: the user store, HTTP Basic logins (argon2id) with a limit on
 * failed attempts, and the hooks routes put in front of themselves.
 */
export default fp(async (app) => {
  const users = new UserStore(app.db);
  const { auth } = app.config;
  const limiter = new FailureLimiter({
    maxPerAddress: auth.maxFailuresPerAddress,
    maxPerAccount: auth.maxFailuresPerAccount,
    windowMs: auth.failureWindowMs,
  });
  // An unknown account is checked against this hash, so that it answers as slowly as a wrong password.
  let decoyHash: Promise<string> | undefined;
  const verified = new VerifiedLogins();

  async function checkCredentials(username: string, password: string, request: FastifyRequest): Promise<void> {
    const account = username.trim().toLowerCase();
    const wait = limiter.beginAttempt(request.ip, account);
    if (wait > 0) {
      request.log.warn({ ip: request.ip }, 'login refused: too many failed attempts');
      throw new ApiError(429, 'tooManyFailures', { 'Retry-After': String(wait) });
    }
    const hash = users.passwordHash(account);
    const ok = (hash !== undefined && verified.has(account, password, hash))
      || await verifyPassword(hash ?? (await (decoyHash ??= hashPassword(randomBytes(16).toString('hex')))), password);
    if (ok && hash !== undefined) verified.add(account, password, hash);
    const user = ok && hash !== undefined ? users.get(account) : undefined;
    if (!user) {
      // (counted as a failure already, by beginAttempt)
      request.log.info({ ip: request.ip }, 'login failed');
      throw new ApiError(401, 'invalidCredentials');
    }
    limiter.recordSuccess(request.ip, account);
    request.user = user;
  }

  await app.register(basicAuth, {
    validate: (username, password, request) => checkCredentials(username, password, request),
    authenticate: { realm: 'logsift' },
  });
  const basic = app.basicAuth as preHandlerHookHandler;

  /** Runs the Basic check; answers the refusal, or undefined when `request.user` is set. */
  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<ApiError | undefined> {
    if (isCrossSite(request, app.baseUrl())) return new ApiError(403, 'crossSiteRequest');
    try {
      await new Promise<void>((resolve, reject) => {
        basic.call(app, request, reply, (err?: Error) => (err ? reject(err) : resolve()));
      });
      return undefined;
    } catch (err) {
      if (err instanceof ApiError) return err;
      // The plugin's own error: no or a malformed Authorization header (it set WWW-Authenticate).
      return new ApiError(401, request.headers.authorization === undefined ? 'authenticationRequired' : 'invalidCredentials');
    }
  }

  const requireUser: AuthCheck = async (request, reply) => {
    const refused = await authenticate(request, reply);
    return refused && sendApiError(reply, refused);
  };

  const requireAdmin: AuthCheck = async (request, reply) => {
    const refused = (await authenticate(request, reply)) ?? (request.user?.group === 'admin' ? undefined : new ApiError(403, 'forbidden'));
    return refused && sendApiError(reply, refused);
  };

  function jobsNeedLogin(): boolean {
    return auth.jobs === 'always' || (auth.jobs === 'when-users-exist' && users.count() > 0);
  }

  // The stored hash changes (new salt) with every new password: it stands for the password's state.
  const tickets = new JobTickets((subject) => users.passwordHashById(Number(subject)));

  /** A `?ticket=` on a GET of a job's files: its user (the route's `jobId`), or a refusal. */
  function ticketCheck(request: FastifyRequest): ApiError | undefined {
    const ticket = (request.query as { ticket?: unknown } | undefined)?.ticket;
    const jobId = (request.params as { jobId?: unknown } | undefined)?.jobId;
    const holder = typeof ticket === 'string' && typeof jobId === 'string' ? tickets.check(ticket, jobId) : undefined;
    const user = holder?.subject ? users.getById(Number(holder.subject)) : undefined;
    if (!holder || (holder.subject !== null && !user)) return new ApiError(401, 'invalidTicket');
    request.user = user ?? null;
    request.viaTicket = true;
    return undefined;
  }

  const requireJobAccess: AuthCheck = async (request, reply) => {
    if (SAFE_METHODS.has(request.method) && (request.query as { ticket?: unknown } | undefined)?.ticket !== undefined && request.headers.authorization === undefined) {
      const refused = ticketCheck(request);
      return refused && sendApiError(reply, refused);
    }
    if (!jobsNeedLogin() && request.headers.authorization === undefined) return undefined;
    const refused = await authenticate(request, reply);
    // The upload is not read: the connection closes once the refusal is sent.
    return refused && sendApiError(reply.header('Connection', 'close'), refused);
  };

  const refuseCrossSite: AuthCheck = async (request, reply) =>
    isCrossSite(request, app.baseUrl()) ? sendApiError(reply, new ApiError(403, 'crossSiteRequest')) : undefined;

  // A page's script that keeps its own login box asks (X-Requested-With) not to get the
  // browser's login dialog on a 401: without the challenge the browser shows none.
  app.addHook('onSend', async (request, reply) => {
    if (request.headers['x-requested-with'] === 'XMLHttpRequest') reply.removeHeader('WWW-Authenticate');
  });

  app.decorateRequest('user', null);
  app.decorateRequest('viaTicket', false);
  app.decorate('userStore', users);
  app.decorate('loginLimiter', limiter);
  app.decorate('requireUser', requireUser);
  app.decorate('requireAdmin', requireAdmin);
  app.decorate('requireJobAccess', requireJobAccess);
  app.decorate('refuseCrossSite', refuseCrossSite);
  app.decorate('jobsNeedLogin', jobsNeedLogin);
  app.decorate('jobTickets', tickets);
}, { name: 'auth', dependencies: ['database'] });
